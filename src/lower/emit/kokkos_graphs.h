// A Kokkos kernel's calls, replayed as CUDA graphs where they repeat: put verbatim into every
// Kokkos source after its prelude (embedded at build time, src/lower/embed_text.cmake); react
// itself never includes it.
//
// Why: on an H200 each launch a call makes costs its host ~5 us, and cuBLAS's product ~10 us more
// before the device runs anything; launched as one graph, the same launches cost about as much as
// one (docs/benchmarks-device.md, "A call's launches as one CUDA graph": SpMM-MM's fill, product
// and SpMM 30.6 us a call launched one by one, 13.3 us as a graph). Small inputs, whose calls are
// mostly that cost, gain most.
//
// How: a call whose arguments (every pointer and count the kernel is given, and its sizes) are
// those of the call just before it, which ran its launches directly and did nothing a replay
// would not (the journal's `uncapturable`, kokkos_prelude.h), records its launches on the
// stream instead of running them (stream capture), then launches the graph once. A later call
// with those arguments replays the graph, where the host's state that the call's code reads is as
// the capture found it: no workspace allocated since, and every alternating array at the same
// turn (its turn then moves as the call's code would move it). Anything else runs the call as it
// is. The host makes every call into the device's runtime one at a time, so nothing else of
// react's is launched on the stream, or waits for the device, while a call is captured; work that
// the program's other threads put on CUDA's legacy default stream meanwhile breaks the capture
// (Kokkos' stream is a blocking one), and the call is then run directly. No call captures while a
// profiling tool is loaded into Kokkos: it fences around launches.
//
// REACT_CUDA_GRAPHS=0 in the environment turns it off (every call launches directly).
#if defined(KOKKOS_ENABLE_CUDA)
#include <algorithm>
#include <cstring>
#include <list>
struct ReactCallGraph {
  std::string key;
  cudaGraphExec_t graph;
  uint64_t generation;
  std::vector<ReactAlternation> alternations;
};
class ReactCallGraphs {
 public:
  using Body = void (*)(const ReactTensor*, const int64_t*);
  void run(const ReactTensor* t, int tensors, const int64_t* sizes, int nsizes, Body body) {
    std::string key(reinterpret_cast<const char*>(t), sizeof(ReactTensor) * static_cast<size_t>(tensors));
    key.append(reinterpret_cast<const char*>(sizes), sizeof(int64_t) * static_cast<size_t>(nsizes));
    cudaStream_t stream = Kokkos::DefaultExecutionSpace().cuda_stream();
    for (auto g = graphs_.begin(); g != graphs_.end(); ++g)
      if (replayable(*g, key) && cudaGraphLaunch(g->graph, stream) == cudaSuccess) {
        for (ReactAlternation& a : g->alternations) *a.turn = a.after;
        graphs_.splice(graphs_.begin(), graphs_, g);  // most recently used first
        last_ = key;
        lastClean_ = true;
        return;
      }
    if (key == last_ && lastClean_ && std::find(refused_.begin(), refused_.end(), key) == refused_.end() &&
        capture(key, stream, t, sizes, body))
      return;
    react_journal() = ReactCallJournal();
    body(t, sizes);
    last_ = key;
    lastClean_ = !react_journal().uncapturable;
  }

 private:
  static bool replayable(const ReactCallGraph& g, const std::string& key) {
    if (g.key != key || g.generation != react_storage_generation()) return false;
    for (const ReactAlternation& a : g.alternations)
      if (!(*a.turn == a.before)) return false;
    return true;
  }
  // Records the call's launches and runs them as a graph; false (the host's state as it was, the
  // call not run) where it cannot: something the capture could not hold, or CUDA refused.
  bool capture(const std::string& key, cudaStream_t stream, const ReactTensor* t, const int64_t* sizes, Body body) {
    ReactCallJournal& journal = react_journal();
    journal = ReactCallJournal();
    const uint64_t generation = react_storage_generation();
    if (cudaStreamBeginCapture(stream, cudaStreamCaptureModeRelaxed) != cudaSuccess) return refuse(key);
    journal.capturing = true;
    try {
      body(t, sizes);
    } catch (...) {  // the capture ends here, whatever threw; the call then runs directly
      journal.spoiled = true;
    }
    journal.capturing = false;
    cudaGraph_t recorded = nullptr;
    cudaGraphExec_t graph = nullptr;
    const bool ended = cudaStreamEndCapture(stream, &recorded) == cudaSuccess;
    const bool made = ended && !journal.spoiled && !journal.uncapturable && generation == react_storage_generation() &&
                      cudaGraphInstantiate(&graph, recorded, 0) == cudaSuccess;
    if (recorded) cudaGraphDestroy(recorded);
    if (!made || cudaGraphLaunch(graph, stream) != cudaSuccess) {
      if (graph) cudaGraphExecDestroy(graph);
      for (auto a = journal.alternations.rbegin(); a != journal.alternations.rend(); ++a) *a->turn = a->before;
      return refuse(key);
    }
    if (!finalizeHook_) {  // the graphs go before Kokkos and CUDA do (this object is never deleted)
      Kokkos::push_finalize_hook([this] { release(); });
      finalizeHook_ = true;
    }
    graphs_.push_front({key, graph, generation, journal.alternations});
    if (graphs_.size() > kGraphs) {
      cudaGraphExecDestroy(graphs_.back().graph);
      graphs_.pop_back();
    }
    lastClean_ = true;
    return true;
  }
  // A call that could not be captured: later calls with its arguments run directly.
  bool refuse(const std::string& key) {
    cudaGetLastError();  // CUDA's error of the refused capture is not the next call's
    refused_.push_back(key);
    if (refused_.size() > kGraphs) refused_.erase(refused_.begin());
    return false;
  }
  void release() {
    for (ReactCallGraph& g : graphs_) cudaGraphExecDestroy(g.graph);
    graphs_.clear();
  }
  // Graphs kept per kernel: two turns of an alternating array for a few argument sets.
  static constexpr size_t kGraphs = 8;
  std::list<ReactCallGraph> graphs_;
  std::vector<std::string> refused_;  // the arguments of the last calls refused, oldest first
  std::string last_;
  bool lastClean_ = false;
  bool finalizeHook_ = false;
};
#else
struct ReactCallGraphs {};
#endif
// A call of a kernel: `body` runs its launches, then the host waits for them. On a CUDA device a
// capturable kernel's repeated calls run as graphs (above), `graphs` the kernel's own (made with
// new and never deleted: Kokkos' finalize, at exit, releases them); `capturable` is false where
// the kernel's code waits for the device itself (a reduction into a host value, a read of the
// device's memory on the host).
static void react_call(ReactCallGraphs& graphs, bool capturable, const ReactTensor* t, int tensors, const int64_t* sizes, int nsizes,
                       void (*body)(const ReactTensor*, const int64_t*)) {
#if defined(KOKKOS_ENABLE_CUDA)
  static const bool enabled = [] {
    const char* e = std::getenv("REACT_CUDA_GRAPHS");
    return !(e && std::strcmp(e, "0") == 0);
  }();
  // A profiling tool loaded into Kokkos fences around launches, which a capture must not.
  if (react_on_cuda && capturable && enabled && !Kokkos::Tools::profileLibraryLoaded()) {
    graphs.run(t, tensors, sizes, nsizes, body);
    Kokkos::fence();
    return;
  }
#endif
  (void)graphs, (void)tensors, (void)nsizes, (void)capturable;
  body(t, sizes);
  Kokkos::fence();
}
