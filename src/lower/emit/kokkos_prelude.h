// The Kokkos kernels' prelude: put verbatim into every Kokkos source after the ABI and the
// temporaries' workspace (embedded at build time, src/lower/embed_text.cmake). The same text
// compiles against Serial, OpenMP and CUDA Kokkos; react itself never includes it.
#include <Kokkos_Core.hpp>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <mutex>
#include <string>
#include <type_traits>
#include <vector>
// A device has no stderr; on the host stderr, flushed: stdout may be a pipe that abort() never flushes.
#if defined(__CUDA_ARCH__) || defined(__HIP_DEVICE_COMPILE__) || defined(__SYCL_DEVICE_ONLY__)
#define REACT_REPORT(...) printf(__VA_ARGS__)
#else
#define REACT_REPORT(...) (fprintf(stderr, __VA_ARGS__), fflush(stderr))
#endif
#define REACT_ABORT() Kokkos::abort("react bounds check failed")
// Kokkos::Max starts from the lowest finite value; react's max of nothing is -inf.
template <class T> struct ReactMax : Kokkos::Max<T> {
  using reducer = ReactMax;
  KOKKOS_INLINE_FUNCTION ReactMax(T& v) : Kokkos::Max<T>(v) {}
  KOKKOS_INLINE_FUNCTION void init(T& v) const { v = -INFINITY; }
};
// A part of a row's sum (a maximum, with Max) added (taken) into `target` atomically.
template <bool Max, class T> KOKKOS_INLINE_FUNCTION void react_combine_into(T* target, T part) {
  if (Max) Kokkos::atomic_fetch_max(target, part);  // Kokkos 3 has no atomic_max
  else Kokkos::atomic_add(target, part);
}
// A run's part of its first row (ir::StmtKind::EntryRuns), added into `target` (a maximum taken
// into it, with Max): on a GPU the lanes of a warp (vector lanes, threadIdx.x, with a vector
// length of 32) first combine the parts of the rows they share, keyed by row (`row`,
// non-decreasing over the lanes but for the lanes without entries, -1, which come last), and the
// lowest lane of each row updates the target, so that a long row takes one atomic update per
// warp rather than one per run (atomics into one element queue behind one another). Every lane
// of the warp must call it.
template <bool Max, class T> KOKKOS_INLINE_FUNCTION void react_update_first_row(T* target, int64_t row, T part) {
#if defined(__CUDA_ARCH__)
  if (blockDim.x == 32) {
    const int lane = threadIdx.x;
    for (int d = 1; d < 32; d <<= 1) {  // a segmented reduction downwards: lanes with another row stop it
      const T other = __shfl_down_sync(0xffffffffu, part, d);
      const int64_t its = __shfl_down_sync(0xffffffffu, row, d);
      if (lane + d < 32 && its == row) part = Max ? (part > other ? part : other) : part + other;
    }
    const int64_t before = __shfl_up_sync(0xffffffffu, row, 1);
    if (row < 0 || (lane != 0 && before == row)) return;
  }
#endif
  if (row < 0) return;
  react_combine_into<Max>(target, part);
}
// Searches over a compressed level's positions (Callee::RowOf), printed after this prelude.
KOKKOS_INLINE_FUNCTION static int64_t react_row_of(const int64_t* positions, int64_t rows, int64_t p);
KOKKOS_INLINE_FUNCTION static int64_t react_row_from(const int64_t* positions, int64_t rows, int64_t from, int64_t p);
// The row of stored entry p where every lane of a warp asks for the same p: on a GPU whose team
// threads hold a warp's 32 lanes, the lanes probe 32 evenly spaced rows of the bracket at once and
// keep the part the last probe at or before p starts, so the search takes log32 of the rows in
// reads one after another (4 for 500,000 rows) instead of log2 (19), each a read that misses the
// caches near the end. Every lane of the warp must call it, with p >= 0 (positions[0] = 0 <= p,
// as for react_row_of).
KOKKOS_INLINE_FUNCTION static int64_t react_row_of_warp(const int64_t* positions, int64_t rows, int64_t p) {
#if defined(__CUDA_ARCH__)
  if (blockDim.x == 32) {
    const int64_t lane = threadIdx.x;
    int64_t lo = 0, hi = rows;  // positions[lo] <= p < positions[hi], as in react_row_of
    while (hi - lo > 1) {
      const int64_t step = (hi - lo + 31) / 32, probe = lo + lane * step;  // lane 0 probes lo
      const unsigned atOrBefore = __ballot_sync(0xffffffffu, probe < hi && positions[probe] <= p);
      lo += (__popc(atOrBefore) - 1) * step;
      hi = lo + step < hi ? lo + step : hi;
    }
    return lo;
  }
#endif
  return react_row_of(positions, rows, p);
}
// The first row of a lane's run [first, last) of stored entries (ir::StmtKind::EntryRuns), 0 for
// a run without entries. On a GPU the warp searches for its first lane's run (whose entries come
// first) together, and each lane goes on from that row to its own by doubling steps over rows the
// warp has just read. Every lane of the warp must call it.
KOKKOS_INLINE_FUNCTION static int64_t react_run_row(const int64_t* positions, int64_t rows, int64_t first, int64_t last) {
#if defined(__CUDA_ARCH__)
  if (blockDim.x == 32) {
    const int64_t warpRow = react_row_of_warp(positions, rows, __shfl_sync(0xffffffffu, first, 0));
    return first < last ? react_row_from(positions, rows, warpRow, first) : 0;
  }
#endif
  return first < last ? react_row_of(positions, rows, first) : 0;
}
// react_run_row for the runs that record their first rows (`recorded[run]`, kept by the workspace
// between calls): the row an earlier call recorded is taken where the positions confirm it, and
// searched for (and recorded) where they do not. Only one row r has positions[r] <= first <
// positions[r + 1], so a confirmed row is the row, whatever the array held: a new matrix, a fresh
// array, another call's. On a GPU a warp searches unless all its lanes are confirmed (the search is
// the warp's). Repeated calls on one matrix so skip the searches, a third of the summing kernel's
// instructions and two fifths of its waits on an H200 (docs/benchmarks-device.md).
KOKKOS_INLINE_FUNCTION static int64_t react_run_row_recorded(const int64_t* positions, int64_t rows, int64_t first, int64_t last,
                                                             int64_t* recorded, int64_t run) {
  const int64_t known = first < last ? recorded[run] : 0;
  bool confirmed = first >= last || (known >= 0 && known < rows && positions[known] <= first && first < positions[known + 1]);
#if defined(__CUDA_ARCH__)
  if (blockDim.x == 32) confirmed = __all_sync(0xffffffffu, confirmed);
#endif
  if (confirmed) return known;
  const int64_t row = react_run_row(positions, rows, first, last);
  if (first < last) recorded[run] = row;
  return row;
}
// A lane loop over [0, Trips), Trips known when the kernel is compiled. Kokkos' ThreadVectorRange
// strides by the vector length it reads at run time; on a GPU whose team threads hold a warp's 32
// lanes the stride here is the constant 32, which the compiler unrolls, and a reduction is a
// butterfly of shuffles that leaves the result on every lane, as Kokkos' does. SDDMM K=64 on an
// H100 took 1.28-1.46x less time so (docs/benchmarks-device.md, "Lane loops of a constant trip
// count"). Fewer lanes (a warp shared by team threads whose control flow may differ), and hosts,
// take Kokkos' loop: constant strides of 16 lanes measured no faster on SpMM's 16 columns.
template <int64_t Trips, class Member, class Body>
KOKKOS_INLINE_FUNCTION void react_lanes_for(const Member& team, const Body& body) {
#if defined(__CUDA_ARCH__)
  if (blockDim.x == 32) {
    for (int k = threadIdx.x; k < Trips; k += 32) body(int64_t(k));
    return;
  }
#endif
  Kokkos::parallel_for(Kokkos::ThreadVectorRange(team, int64_t(0), Trips), body);
}
template <int64_t Trips, class Member, class Body, class Reducer>
KOKKOS_INLINE_FUNCTION void react_lanes_reduce(const Member& team, const Body& body, const Reducer& reducer) {
#if defined(__CUDA_ARCH__)
  if (blockDim.x == 32) {
    typename Reducer::value_type acc;
    reducer.init(acc);
    for (int k = threadIdx.x; k < Trips; k += 32) body(int64_t(k), acc);
    for (int d = 16; d > 0; d >>= 1) reducer.join(acc, __shfl_xor_sync(0xffffffffu, acc, d));
    reducer.reference() = acc;
    return;
  }
#endif
  Kokkos::parallel_reduce(Kokkos::ThreadVectorRange(team, int64_t(0), Trips), body, reducer);
}
// A team's scratch for temporaries of value type T.
template <class T> using react_scratch =
    Kokkos::View<T*, Kokkos::DefaultExecutionSpace::scratch_memory_space, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
using react_memory = Kokkos::DefaultExecutionSpace::memory_space;
constexpr bool react_on_device = !Kokkos::SpaceAccessibility<Kokkos::HostSpace, react_memory>::accessible;
// The lanes of a team thread meet: one lane reads what another wrote to the team's scratch. On a
// GPU a team thread's lanes are a warp's (threadIdx.x, a vector length of 32), and every lane
// calls it; a host's team thread has one lane.
KOKKOS_INLINE_FUNCTION void react_sync_lanes() {
#if defined(__CUDA_ARCH__)
  __syncwarp();
#elif defined(__HIP_DEVICE_COMPILE__)
  __syncthreads();  // every thread of the team calls it too
#else
  // Another device (SYCL, OpenMPTarget, ...): not ported, so an error rather than a race.
  if (react_on_device) Kokkos::abort("react: the lanes of entry runs cannot meet on this device");
#endif
}
// The 32-bit registers a lane holds of one entry's terms in entry lanes.
template <class T, int64_t Trips> constexpr int react_entry_lane_words = int((Trips + 31) / 32) * int(sizeof(T)) / 4;
// Entry lanes' teams (4 warps) with launch bounds of at least 12 teams an SM (40 registers a
// thread) in float32 where an entry's terms take 2 registers a lane (33 <= K <= 64; measured at
// K = 64): on an H200 the bounded kernel took 0.85x the time on the power-law graphs, 0.82-0.94x
// on three shared matrices. Unbounded, ncu counted 37 registers (12 teams an SM already); what
// the bounds change in the compiled code was not examined. With more registers a lane (float64,
// K = 256) the same bounds took up to 1.3x longer, and bounds of 16 teams (32 registers) up to
// 2.1x (docs/benchmarks-device.md, "Entry lanes' registers: launch bounds").
template <class T, int64_t Trips>
using react_entry_lanes_bounds = std::conditional_t<sizeof(T) == 4 && react_entry_lane_words<T, Trips> == 2, Kokkos::LaunchBounds<128, 12>,
                                                    Kokkos::LaunchBounds<>>;
// The stored entries [first, last) of a chunk of at most 32 (ir::StmtKind::EntryLanes): for each
// entry p, its row i = row(p, from) (searched from a row `from` already found, or from the start
// where that is -1), its coordinate j = coordinate(p, i), the sum over k in [0, Trips) of
// term(i, j, k), and then use(p, i, j, sum). On a GPU whose team threads hold a warp's 32 lanes,
// each lane takes an entry and finds its row and coordinate; the lanes then run along k for G
// entries at a time, the G entries' terms in one unrolled block with no store between them, so
// that the compiler can have G rows' reads in flight at once (G is 8, or fewer where a group's
// terms would take more than 64 registers a lane; 1 beyond). Halving steps (a lane keeps the half
// of its sums its bit w selects and adds its partner's copy) leave entry u's parts on the 32 / G
// lanes of block u, a butterfly within the block adds them, and the block's first lane hands the
// sum to the entry's own lane; the uses run there, so the chunk's stores are one coalesced store.
// Against a team thread that ran its entries one after another, a hand-written kernel of this
// shape took 2-3.3x less time at K=64 on an H200 (docs/benchmarks-device.md, "SDDMM against what
// it must gather"). A host runs the entries one after another; another device, whose lanes this
// does not divide, stops rather than run every entry on every lane.
template <class T, int64_t Trips, class Row, class Coordinate, class Term, class Use>
KOKKOS_INLINE_FUNCTION void react_entry_lanes(int64_t first, int64_t last, const Row& row, const Coordinate& coordinate,
                                              const Term& term, const Use& use) {
#if defined(__CUDA_ARCH__)
  if (blockDim.x != 32) Kokkos::abort("react: entry lanes need a warp's 32 lanes");
  {
    constexpr int Steps = int((Trips + 31) / 32), Words = react_entry_lane_words<T, Trips>;
    constexpr int G = Words <= 8 ? 8 : Words <= 16 ? 4 : Words <= 32 ? 2 : 1, Bits = G == 8 ? 3 : G == 4 ? 2 : G == 2 ? 1 : 0;
    const int lane = threadIdx.x, count = int(last - first);
    const bool mine = lane < count;
    const int64_t start = row(first, int64_t(-1));  // the warp searches together
    const int64_t i = mine ? row(first + lane, start) : start, j = mine ? coordinate(first + lane, i) : 0;
    T sum = 0;
    for (int g = 0; g * G < count; ++g) {
      T parts[G];
#pragma unroll
      for (int u = 0; u < G; ++u) {
        const int e = g * G + u;
        const int64_t ie = __shfl_sync(0xffffffffu, i, e), je = __shfl_sync(0xffffffffu, j, e);
        // In float64 with at most 2 terms a lane, each term is added where it is made, so that
        // the product and the addition fuse (SDDMM K=64 took 0.94x the time on an H200); elsewhere
        // the terms are made apart and then added: with more terms the fused ones make one chain
        // (K=256 took 1.17-1.35x), and float32 at K=64 gained nothing (docs/benchmarks-device.md).
        constexpr bool Fused = sizeof(T) == 8 && Steps <= 2;
        T terms[Steps], part = 0;
#pragma unroll
        for (int t = 0; t < Steps; ++t) {
          const int64_t k = t * 32 + lane;
          const bool made = e < count && (Trips % 32 == 0 || k < Trips);
          if (Fused) {
            if (made) part += term(ie, je, k);
          } else {
            terms[t] = made ? term(ie, je, k) : T(0);
          }
        }
        if (!Fused) {
#pragma unroll
          for (int t = 0; t < Steps; ++t) part += terms[t];
        }
        parts[u] = part;
      }
#pragma unroll
      for (int step = 0; step < Bits; ++step) {
        const int w = 16 >> step, half = (G / 2) >> step;
        const bool upper = lane & w;
#pragma unroll
        for (int q = 0; q < half; ++q) {
          const T send = upper ? parts[q] : parts[q + half], keep = upper ? parts[q + half] : parts[q];
          parts[q] = keep + __shfl_xor_sync(0xffffffffu, send, w);
        }
      }
      T total = parts[0];
#pragma unroll
      for (int d = 16 >> Bits; d > 0; d >>= 1) total += __shfl_xor_sync(0xffffffffu, total, d);
      const T entrySum = __shfl_sync(0xffffffffu, total, (lane % G) << (5 - Bits));  // entry g * G + lane % G
      if (lane / G == g) sum = entrySum;
    }
    if (mine) use(first + lane, i, j, sum);
  }
#else
  if (react_on_device) Kokkos::abort("react: entry lanes are not ported to this device");
  int64_t i = -1;
  for (int64_t p = first; p < last; ++p) {
    i = row(p, i);
    const int64_t j = coordinate(p, i);
    T sum = 0;
    for (int64_t k = 0; k < Trips; ++k) sum += term(i, j, k);
    use(p, i, j, sum);
  }
#endif
}
// What a call's host code did that decides whether the call can be replayed as a CUDA graph
// (kokkos_graphs.h): a replay runs the call's launches again without its host code, so it is right
// only where that host code would do the same again. A kernel's calls are one at a time (the host
// serializes its calls into a device's runtime), so one journal per library serves them all.
//   uncapturable  the call did what a replay would not: grew storage, measured a matrix, read
//                 the device's memory on the host, used team scratch outside the block, made a
//                 prepared argument; its next call does not capture
//   capturing     the call's launches are being recorded, not run: nothing may wait for them
//   spoiled       something while capturing could not be recorded as it should; the graph is
//                 dropped, the host's state put back, and the call run as it is
//   alternations  while capturing, each alternating array's turn before and after the call
//                 (ReactAlternatingArray)
struct ReactTurn {
  int now = 0;
  int64_t written[2] = {0, 0};  // the elements of each half that the last call adding into it may have changed
  bool operator==(const ReactTurn& o) const { return now == o.now && written[0] == o.written[0] && written[1] == o.written[1]; }
};
struct ReactAlternation {
  ReactTurn* turn;
  ReactTurn before, after;
};
struct ReactCallJournal {
  bool uncapturable = false, capturing = false, spoiled = false;
  std::vector<ReactAlternation> alternations;
};
static ReactCallJournal& react_journal() {
  static ReactCallJournal journal;
  return journal;
}
// Counts every allocation of a workspace or alternating array in this library: a graph holds
// their addresses, so one captured before a later allocation is not replayed.
static uint64_t& react_storage_generation() {
  static uint64_t generation = 0;
  return generation;
}
static void react_note_uncapturable() {
  ReactCallJournal& j = react_journal();
  j.uncapturable = true;
  if (j.capturing) j.spoiled = true;
}
// The lanes a row takes on a GPU for `inner` iterations of its inner loops: a power of two up to a warp.
static int64_t react_row_lanes(double inner) {
  int64_t lanes = 1;
  while (lanes < 32 && lanes < inner) lanes *= 2;
  return lanes;
}
// How a nest with one row per outer iteration is launched on this input. A row belongs to one
// thread of a team and its inner loops to that thread's vector lanes. On a GPU the lanes follow
// the rows' average inner trip count (up to a warp) and short rows share a team of 128 threads,
// so a matrix of short rows still fills the warps; on a CPU a row is one thread's serial work.
// Where every row can have a warp of its own and the device still runs them all at once, each
// does: lanes sized by the average leave the longest row, which the kernel waits for, to a few
// lanes (cora's 168 entries on 4 lanes), and wider rows cost nothing when the warps are there
// anyway. On an H200 (docs/benchmarks-device.md) row normalisation took 1.75x less time on cora,
// 1.30x on wiki-Vote, softmax 2.09x and 1.47x, and no kernel on the six matrices more.
struct ReactLaunch { int64_t league, rows, lanes; int level; };
static ReactLaunch react_launch(int64_t rows, double inner, int64_t rows_per_team, size_t row_scratch_bytes) {
  ReactLaunch l{0, 1, 1, 0};
  if (react_on_device) {
    static const int64_t concurrency = Kokkos::DefaultExecutionSpace().concurrency();
    l.lanes = react_row_lanes(inner);
    if (rows_per_team <= 0 && rows <= concurrency / 32) l.lanes = 32;  // a team size asked for keeps its lanes
    l.rows = 128 / l.lanes;
  }
  if (rows_per_team > 0) l.rows = rows_per_team;
  // Team scratch beyond what a GPU block's shared memory holds by default goes to level 1.
  l.level = static_cast<size_t>(l.rows) * row_scratch_bytes > 48 * 1024 ? 1 : 0;
  if (l.level == 1) react_note_uncapturable();  // Kokkos' pool for it may move: a graph would keep its old address
  l.league = (rows + l.rows - 1) / l.rows;
  return l;
}
// The stored entries a chunk of fibre-chunks holds (ir::Callee::ChunkLength; passes/fibre_chunks.cpp
// says why), for `count` of them whose work goes to `inner` lanes: on a GPU the shortest of 4, 8,
// 16 and 32 that leaves no more chunks than the device runs at once (its threads over the lanes a
// chunk takes), else 32; on a host 32.
static int64_t react_fibre_chunk_length(int64_t count, double inner) {
  if (!react_on_device) return 32;
  static const int64_t concurrency = Kokkos::DefaultExecutionSpace().concurrency();
  const int64_t at_once = concurrency / react_row_lanes(inner);
  int64_t length = 4;
  while (length < 32 && count > length * at_once) length *= 2;
  return length;
}
// The most stored entries a row of a csr matrix holds (`positions`: rows + 1 of them, in the
// kernel's memory), which picks one of two forms of a nest (ir::StmtKind::IfLongRows). Measured
// by a reduction over the rows the first time a positions array (its address and rows) is seen,
// then remembered: a reduction and the wait for it would cost a small matrix's kernels as much
// again. A caller who rewrites a matrix's positions in place keeps the first choice, which
// changes how fast the nest runs, never what it computes.
static int64_t react_longest_row(const int64_t* positions, int64_t rows) {
  static std::mutex known_mutex;
  static std::map<std::pair<const int64_t*, int64_t>, int64_t> known;
  const std::pair<const int64_t*, int64_t> key{positions, rows};
  {
    std::lock_guard<std::mutex> lock(known_mutex);
    auto it = known.find(key);
    if (it != known.end()) return it->second;
  }
  react_note_uncapturable();
  // While a call is captured nothing may wait for the device: either form computes the same, and
  // the capture is dropped.
  if (react_journal().capturing) return INT64_MAX;
  int64_t longest = 0;
  Kokkos::parallel_reduce("react_longest_row", Kokkos::RangePolicy<Kokkos::IndexType<int64_t>>(0, rows),
                          KOKKOS_LAMBDA(const int64_t r, int64_t& most) {
                            const int64_t length = positions[r + 1] - positions[r];
                            if (length > most) most = length;
                          }, Kokkos::Max<int64_t>(longest));
  std::lock_guard<std::mutex> lock(known_mutex);
  if (known.size() >= 64) known.clear();  // a process that sees many matrices measures again
  known[key] = longest;
  return longest;
}
// The runtime the host side of react uses, declared by the ABI header above (REACT_KOKKOS_RUNTIME).
extern "C" void react_runtime_initialize() {
  if (Kokkos::is_initialized()) return;
  Kokkos::initialize();
  std::atexit([] { if (Kokkos::is_initialized()) Kokkos::finalize(); });
}
extern "C" void* react_runtime_allocate(size_t bytes) { return Kokkos::kokkos_malloc<react_memory>("react", bytes ? bytes : 1); }
extern "C" void react_runtime_release(void* p) { Kokkos::kokkos_free<react_memory>(p); }
extern "C" void react_runtime_copy(void* dst, const void* src, size_t bytes, int kind) {
  using Unmanaged = Kokkos::MemoryTraits<Kokkos::Unmanaged>;
  using HostBytes = Kokkos::View<char*, Kokkos::HostSpace, Unmanaged>;
  using DeviceBytes = Kokkos::View<char*, react_memory, Unmanaged>;
  char* s = static_cast<char*>(const_cast<void*>(src));
  char* d = static_cast<char*>(dst);
  if (kind == REACT_COPY_HOST_TO_DEVICE) Kokkos::deep_copy(DeviceBytes(d, bytes), HostBytes(s, bytes));
  else if (kind == REACT_COPY_DEVICE_TO_HOST) Kokkos::deep_copy(HostBytes(d, bytes), DeviceBytes(s, bytes));
  else Kokkos::deep_copy(DeviceBytes(d, bytes), DeviceBytes(s, bytes));
  Kokkos::fence();
}
extern "C" int react_runtime_host_accessible() { return react_on_device ? 0 : 1; }
// An element of an array in the kernel's memory, read by the host: a bound the host launches a
// loop with (a tensor's first level ends at pos[0][1]).
template <class T> static T react_host_read(const T* array, int64_t offset) {
  if (!react_on_device) return array[offset];
  react_note_uncapturable();
  if (react_journal().capturing) return T(0);  // the capture is dropped: nothing may wait for the device
  T value;
  react_runtime_copy(&value, array + offset, sizeof(T), REACT_COPY_DEVICE_TO_HOST);
  return value;
}
extern "C" int react_runtime_concurrency() { return Kokkos::DefaultExecutionSpace().concurrency(); }
// A GPU's properties, by name: a model measured on one device (docs/auto.md) is stored per device.
// Asked only where CUDA is the default execution space, the one kernels run on.
#ifdef KOKKOS_ENABLE_CUDA
constexpr bool react_on_cuda = std::is_same_v<Kokkos::DefaultExecutionSpace, Kokkos::Cuda>;
static const cudaDeviceProp& react_cuda_properties() {
  static const cudaDeviceProp properties = [] {
    cudaDeviceProp p{};
    cudaGetDeviceProperties(&p, Kokkos::Cuda().cuda_device());
    return p;
  }();
  return properties;
}
#endif
extern "C" const char* react_runtime_describe() {
  static const std::string text = [] {
    std::string name = Kokkos::DefaultExecutionSpace::name();
#ifdef KOKKOS_ENABLE_CUDA
    if (react_on_cuda) name += std::string(" ") + react_cuda_properties().name;
#endif
    return name + " (concurrency " + std::to_string(Kokkos::DefaultExecutionSpace().concurrency()) + ")";
  }();
  return text.c_str();
}
extern "C" long react_runtime_cache_bytes() {
#ifdef KOKKOS_ENABLE_CUDA
  if (react_on_cuda) return react_cuda_properties().l2CacheSize;
#endif
  return 0;
}
// values[0, n) := value, in order with the nests. Nothing for no elements: Kokkos' fill of an
// array without storage waits for the device, which a captured call must not (kokkos_graphs.h).
template <class T> static void react_fill(T* values, int64_t n, T value) {
  if (n <= 0 || values == nullptr) return;
  Kokkos::deep_copy(Kokkos::DefaultExecutionSpace(), Kokkos::View<T*, Kokkos::MemoryUnmanaged>(values, static_cast<size_t>(n)), value);
}
// A temporary's storage in the kernel's memory, for a ReactWorkspace (workspace.h): allocated anew
// at every run it cost a cudaMalloc and a cudaFree that waits for the device, more than the nests
// of a small input take.
template <class T> struct ReactDeviceArray {
  Kokkos::View<T*> view;
  T* reserve(size_t n) {
    if (view.extent(0) < n) {
      react_note_uncapturable();
      ++react_storage_generation();
      view = Kokkos::View<T*>();  // freed before its successor is made
      view = Kokkos::View<T*>(Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string("react temporary")), n);
    }
    return view.data();
  }
};
// An array that entry runs add a value per row into (ir::StmtNode::alternating), kept between calls
// in two halves that take turns: a call adds into `now`, which holds the array's initial value
// where the call starts, and the kernel that adds into it sets the first `restore` elements of
// `other` (all that the call before wrote there) back to that value for the next call. So a call
// launches no fill of its own: on an H200 each launch of a call costs ~4.6 us more
// (docs/benchmarks-device.md, "A call's fixed cost"). begin_call gives a call its halves (both
// grown and filled where they hold fewer than n); end_call, once that kernel is queued, swaps
// them: a call that throws in between leaves the state as it was.
template <class T> struct ReactHalves {
  T* now;
  T* other;
  int64_t restore;
};
template <class T> struct ReactAlternatingArray {
  Kokkos::View<T*> halves[2];
  ReactTurn turn;
  // The halves hold the initial value; not where their fill was recorded by a capture that was
  // then dropped (it never ran), so the next call fills them again.
  bool filled = false;
  ReactHalves<T> begin_call(size_t n, T init) {
    int& now = turn.now;
    int64_t* written = turn.written;
    if (halves[0].extent(0) < n || halves[1].extent(0) < n) {
      ++react_storage_generation();
      for (Kokkos::View<T*>& h : halves) {
        h = Kokkos::View<T*>();  // freed before its successor is made
        h = Kokkos::View<T*>(Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string("react alternating")), n);
      }
      filled = false;
    }
    if (!filled) {
      react_note_uncapturable();
      for (Kokkos::View<T*>& h : halves) react_fill(h.data(), static_cast<int64_t>(h.extent(0)), init);
      written[0] = written[1] = 0;
      filled = !react_journal().capturing;
    }
    if (react_journal().capturing) react_journal().alternations.push_back({&turn, turn, turn});
    return {halves[now].data(), halves[1 - now].data(), written[1 - now]};
  }
  void end_call(size_t n) {
    turn.written[1 - turn.now] = 0;
    turn.written[turn.now] = static_cast<int64_t>(n);
    turn.now = 1 - turn.now;
    for (ReactAlternation& a : react_journal().alternations)
      if (a.turn == &turn) a.after = turn;
  }
};
// A site's workspace (of a ReactDeviceArray or a ReactAlternatingArray), made with new and never
// deleted, so that it outlives every static; Kokkos' finalize hook frees its memory, since a view
// freed after finalize is an error.
template <class Storage> ReactWorkspace<Storage>& react_device_workspace() {
  auto* w = new ReactWorkspace<Storage>();
  Kokkos::push_finalize_hook([w] { w->storage = Storage(); });
  return *w;
}
// A dense product through cuBLAS where the kernel library links it (REACT_HAVE_CUBLAS: a CUDA
// Kokkos whose toolkit has cuBLAS, cmake/ReactKokkos.cmake): out += a b for row-major a (m x k)
// and b (k x n), or out = a b where not `accumulate` (beta 0: out is not read). cuBLAS is
// column-major, and a row-major matrix is its transpose stored column-major, so it computes
// out^T += b^T a^T on the same memory; on Kokkos' stream, in order with the nests around it.
// 64-bit extents (the _64 calls): a react matrix may pass 2^31 rows.
#if defined(REACT_HAVE_CUBLAS) && defined(KOKKOS_ENABLE_CUDA)
#include <cublas_v2.h>
#define REACT_DENSE_PRODUCT 1
static void react_cublas_check(cublasStatus_t status) {
  if (status != CUBLAS_STATUS_SUCCESS) Kokkos::abort("react: a cuBLAS call failed");
}
// One handle per kernel library, made at its first product and kept while the process runs.
static cublasHandle_t react_cublas() {
  static cublasHandle_t handle = [] {
    cublasHandle_t h = nullptr;
    react_cublas_check(cublasCreate(&h));
    return h;
  }();
  react_cublas_check(cublasSetStream(handle, Kokkos::DefaultExecutionSpace().cuda_stream()));
  return handle;
}
// cuBLAS's product of column-major matrices, out = a b + beta out, in each value type.
static void react_gemm(int64_t m, int64_t n, int64_t k, const double* a, const double* b, double beta, double* out) {
  const double one = 1;
  react_cublas_check(cublasDgemm_64(react_cublas(), CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, &one, a, m, b, k, &beta, out, m));
}
static void react_gemm(int64_t m, int64_t n, int64_t k, const float* a, const float* b, float beta, float* out) {
  const float one = 1;
  react_cublas_check(cublasSgemm_64(react_cublas(), CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, &one, a, m, b, k, &beta, out, m));
}
template <class T>
static void react_dense_product(const T* a, const T* b, T* out, int64_t m, int64_t n, int64_t k, bool accumulate) {
  if (m <= 0 || n <= 0) return;
  if (k <= 0) {  // a product of nothing: out stays, or is zero
    if (!accumulate) react_fill(out, m * n, T(0));
    return;
  }
  react_gemm(n, m, k, b, a, accumulate ? T(1) : T(0), out);  // out^T = b^T a^T, column-major
}
#endif
