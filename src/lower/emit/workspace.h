// A temporary's storage kept for the next run, as both kernel preludes keep it: put verbatim into
// every generated source (embedded at build time, src/lower/embed_text.cmake); react itself never
// includes it. One workspace per allocation site (a function-local static); a run leases it, and a
// run that finds it leased (the kernel running on another thread at once) uses storage of its own
// for that run. `Storage` is the prelude's array in the kernel's memory (ReactHostArray,
// ReactDeviceArray): `T* reserve(size_t n)` gives at least n elements, keeping what it holds when
// that is enough. Not thread_local: dynamic TLS in a loaded library crashes LeakSanitizer's tracer
// at exit.
#include <atomic>

template <class Storage>
struct ReactWorkspace {
  std::atomic_flag leased = ATOMIC_FLAG_INIT;
  Storage storage;
};
template <class Storage>
class ReactWorkspaceLease {
 public:
  explicit ReactWorkspaceLease(ReactWorkspace<Storage>& w) : w_(w), held_(!w.leased.test_and_set(std::memory_order_acquire)) {}
  ReactWorkspaceLease(const ReactWorkspaceLease&) = delete;
  ReactWorkspaceLease& operator=(const ReactWorkspaceLease&) = delete;
  ~ReactWorkspaceLease() {
    if (held_) w_.leased.clear(std::memory_order_release);
  }
  Storage& storage() { return held_ ? w_.storage : own_; }

 private:
  ReactWorkspace<Storage>& w_;
  bool held_;
  Storage own_;
};
