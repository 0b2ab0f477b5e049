// The TACO baselines (taco-default, taco-best): each benchmark kernel in TACO's index notation,
// compiled through TACO's C++ API when the variant is prepared (TACO's JIT writes C and runs the
// system `cc`: outside the timings) and run through ir::Module::callFuncPacked, the entry
// TensorBase::compute() uses, so a timed run is TACO's compute functions alone.
//   taco-default  the expression as written, scheduled as TensorBase::compile() schedules it
//                 (topological loop order, inserted temporaries, outer loop parallel where TACO can)
//   taco-best     the fastest schedule written by hand, chosen by measuring (docs/benchmarks-taco.md):
//     sddmm    C stored column-major (a transposed copy made when prepared), loops i,j,k
//     spmm_mm  two kernels: T = C @ D, then A = S @ T
//     norm_row the row sum hoisted into a scalar per row: where(A(i,j) = S(i,j) / r, r += S(i,l))
//     softmax  E = exp(S) stored, then the same on E
//     mttkrp   the sum over l in a dense workspace w(j) per (i,k) fibre, C(k,j) multiplied once per
//              fibre: forall i, k: where(A(i,j) += w(j) * C(k,j), w(j) += S(i,k,l) * D(l,j)), the
//              workspace form of TACO's workspace paper (Kjolstad et al., CGO 2019)
//     ttm      none beyond the default (its i,j,k,l order already streams C's rows): cannot run
// The tensor kernels read S as {Sparse,Sparse,Sparse} (csf) and write A dense, as react does.
// TACO's exp intrinsic is exp of every entry, implicit zeros included (exp(0) = 1: a dense
// softmax); react's exp(S) is exp of the stored entries (docs/semantics.md), which TACO expresses
// as a user-defined function whose iteration region is its argument's. Sparse results get S's
// pattern when prepared (what TACO's assemble step would compute), so runs compute values only.
#include "bench/bench.hpp"

#include <cmath>

#ifdef REACT_HAVE_TACO
#include <omp.h>
#include <taco.h>
#include <taco/codegen/module.h>
#include <taco/index_notation/index_notation_nodes.h>
#include <taco/index_notation/tensor_operator.h>
#include <taco/index_notation/transformations.h>
#include <taco/lower/lower.h>
#include <taco/version.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <sstream>
#include <stdexcept>
#endif

namespace react::bench {

double tacoFlops(const BenchKernel& k, const TensorData& input, TacoSchedule schedule) {
  if (k.tensor()) {
    const SparseTensor& t = std::get<SparseTensor>(input);
    const double nnz = static_cast<double>(t.nnz()), r = static_cast<double>(k.rank);
    if (k.name == "ttm") return 2 * r * nnz;
    // mttkrp: the default multiplies C(k,j) in for every entry; the workspace once per fibre.
    return schedule == TacoSchedule::Best ? 2 * r * (nnz + static_cast<double>(fibreStats(t).fibres)) : 3 * r * nnz;
  }
  const CsrMatrix& s = std::get<CsrMatrix>(input);
  const double nnz = static_cast<double>(s.nnz()), nc = static_cast<double>(s.cols);
  const double nh = static_cast<double>(k.nh), nj = static_cast<double>(k.nj);
  const bool best = schedule == TacoSchedule::Best;
  if (k.name == "sddmm") return 3 * nnz * static_cast<double>(k.k);  // (S * B) * C, and the sum, for each k
  if (k.name == "spmm_mm") return best ? 2 * nc * nh * nj + 2 * nnz * nj : 3 * nnz * nh * nj;  // (C @ D), S @ T; fused
  const double exps = k.name == "softmax" ? 1 : 0;
  if (best) return (2 + exps) * nnz;  // exp once, the row sum's add, the division
  // The default recomputes row i's sum (with softmax's exp) for each of its entries.
  double sumTerms = 0;
  for (int64_t r = 0; r < s.rows; ++r) sumTerms += std::pow(static_cast<double>(s.rowptr[r + 1] - s.rowptr[r]), 2);
  return (1 + exps) * (sumTerms + nnz);
}

#ifdef REACT_HAVE_TACO
namespace {

using taco::IndexExpr;
using taco::IndexStmt;
using taco::IndexVar;
using taco::TensorBase;

// TACO's arrays are not const; its kernels only read their operands.
template <typename T>
T* writable(const std::vector<T>& v) {
  return const_cast<T*>(v.data());
}

// A rows x cols matrix over `data`, row-major or column-major (TACO's mode ordering {1, 0}).
TensorBase denseMatrix(const std::string& name, int64_t rows, int64_t cols, double* data, bool columnMajor = false) {
  taco::Format format = columnMajor ? taco::Format({taco::Dense, taco::Dense}, {1, 0}) : taco::Format({taco::Dense, taco::Dense});
  taco::Tensor<double> t(name, {static_cast<int>(rows), static_cast<int>(cols)}, format);
  taco::TensorStorage storage = t.getStorage();
  int outer = static_cast<int>(columnMajor ? cols : rows), inner = static_cast<int>(columnMajor ? rows : cols);
  storage.setIndex(taco::Index(format, {taco::ModeIndex({taco::makeArray({outer})}), taco::ModeIndex({taco::makeArray({inner})})}));
  storage.setValues(taco::makeArray(data, static_cast<size_t>(rows * cols)));
  t.setStorage(storage);
  return t;
}

// exp of the stored entries only: a TACO function whose iteration region is its argument's.
// Function pointers, not functors: TACO 2b8ece4c compares the functions of two calls by their
// target function pointer and crashes on a functor (util::targetPtrEqual).
taco::ir::Expr expCall(const std::vector<taco::ir::Expr>& args) { return taco::ir::Call::make("exp", args, args[0].type()); }
taco::IterationAlgebra argumentRegion(const std::vector<IndexExpr>& args) { return taco::IterationAlgebra(args[0]); }
taco::Func storedExp() { return taco::Func("exp", expCall, argumentRegion); }

// What TensorBase::compile() makes of an assignment: TACO's default schedule.
IndexStmt defaultSchedule(const taco::Assignment& a) {
  IndexStmt stmt = taco::makeConcreteNotation(taco::makeReductionNotation(a));
  stmt = taco::reorderLoopsTopologically(stmt);
  stmt = taco::insertTemporaries(stmt);
  return taco::parallelizeOuterLoop(stmt);
}

// Assignments built directly: Access::operator= would also make the assignment the tensor's own
// (TACO's lazy evaluation), which these tensors never use.
taco::Assignment assign(const taco::Access& lhs, const IndexExpr& rhs) { return taco::Assignment(lhs, rhs); }
taco::Assignment accumulate(const taco::Access& lhs, const IndexExpr& rhs) { return taco::Assignment(lhs, rhs, taco::Add()); }

bool isParallel(IndexStmt stmt) {
  bool parallel = false;
  taco::match(stmt, std::function<void(const taco::ForallNode*, taco::Matcher*)>([&](const taco::ForallNode* f, taco::Matcher* m) {
                parallel |= f->parallel_unit != taco::ParallelUnit::NotParallel;
                m->match(f->stmt);
              }));
  return parallel;
}

// TACO issue #73 (open): where a reduction loop encloses a loop over a sparse result's index,
// TACO 2b8ece4c appends one result value per reduction iteration (for sddmm's default order
// i,k,j: K times past the end of A's values). True when `stmt` assigns `result` so.
bool reductionEnclosesResultLoop(IndexStmt stmt, const taco::TensorVar& result) {
  std::vector<IndexVar> enclosing;
  bool encloses = false;
  taco::match(stmt,
              std::function<void(const taco::ForallNode*, taco::Matcher*)>([&](const taco::ForallNode* f, taco::Matcher* m) {
                enclosing.push_back(f->indexVar);
                m->match(f->stmt);
                enclosing.pop_back();
              }),
              std::function<void(const taco::AssignmentNode*)>([&](const taco::AssignmentNode* a) {
                if (a->lhs.getTensorVar() != result) return;
                const std::vector<IndexVar>& resultIndices = a->lhs.getIndexVars();
                bool inReduction = false;
                for (const IndexVar& v : enclosing) {
                  bool free = std::find(resultIndices.begin(), resultIndices.end(), v) != resultIndices.end();
                  encloses |= free && inReduction;
                  inReduction |= !free;
                }
              }));
  return encloses;
}

// One compiled compute function and its arguments (result first, then the operands in the order
// lowering gives them, as TensorBase::compute() packs them).
struct TacoStep {
  std::shared_ptr<taco::ir::Module> module;
  std::vector<TensorBase> tensors;  // keep the storages the arguments point into alive
  std::vector<void*> arguments;
  bool parallel = false;
  std::string schedule;  // the concrete statement, for the report
  double compileSeconds = 0;
};

TacoStep compileStep(IndexStmt stmt, const TensorBase& result, const std::vector<TensorBase>& operands) {
  TacoStep step;
  auto start = std::chrono::steady_clock::now();
  IndexStmt concrete = taco::scalarPromote(stmt.concretize());  // as TensorBase::compile(stmt)
  step.module = std::make_shared<taco::ir::Module>();
  step.module->addFunction(taco::lower(concrete, "compute", /*assemble=*/false, /*compute=*/true));
  step.module->compile();
  step.compileSeconds = secondsSince(start);
  step.tensors.push_back(result);
  step.arguments.push_back(static_cast<taco_tensor_t*>(result.getStorage()));
  for (const taco::TensorVar& var : taco::getArguments(concrete))
    for (const TensorBase& t : operands)
      if (t.getTensorVar() == var) {
        step.tensors.push_back(t);
        step.arguments.push_back(static_cast<taco_tensor_t*>(t.getStorage()));
      }
  step.parallel = isParallel(concrete);
  std::ostringstream text;
  text << concrete;
  step.schedule = text.str();
  return step;
}

struct Refused : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// The arrays of a csr tensor with S's pattern (what TACO's assemble step would give the result),
// its own: TACO's arrays are writable, S's are the harness's.
struct PatternArrays {
  std::vector<int> rowptr, col;
  std::vector<double> values;
};

// An instance that runs compiled TACO steps one after the other.
class TacoStepsInstance : public Instance {
 public:
  void run() override {
    // TACO's entry sets the OpenMP thread count to taco_get_num_threads() for the call: the harness's.
    taco::taco_set_num_threads(omp_get_max_threads());
    for (TacoStep& step : steps_) step.module->callFuncPacked("compute", step.arguments.data());
  }

  // A serial schedule runs on one thread whatever --threads says: TACO parallelizes a loop that
  // appends to a compressed result only with its insert assembly, which taco-best leaves out
  // (docs/benchmarks-taco.md: slower at 1 thread, or a tie), and which its default schedule does not try.
  int threads() const override { return parallel() ? omp_get_max_threads() : 1; }
  bool followsOpenMPThreads() const override { return parallel(); }

 protected:
  // "taco <commit>: <layout><schedule>; then <schedule>; compiled in 12 ms (not timed)"
  std::string stepsNote(const std::string& layout) const {
    std::string text = std::string("taco ") + TACO_VERSION_GIT_SHORTHASH + ": " + layout;
    double compileSeconds = 0;
    for (size_t n = 0; n < steps_.size(); ++n) {
      text += (n ? "; then " : "") + steps_[n].schedule;
      compileSeconds += steps_[n].compileSeconds;
    }
    return text + "; compiled in " + formatMilliseconds(compileSeconds) + " (not timed)";
  }

  std::vector<TacoStep> steps_;

 private:
  bool parallel() const {
    return std::any_of(steps_.begin(), steps_.end(), [](const TacoStep& s) { return s.parallel; });
  }
};

class TacoInstance : public TacoStepsInstance {
 public:
  TacoInstance(const BenchKernel& kernel, const TensorValues& inputs, TacoSchedule schedule)
      : kernel_(kernel.name), best_(schedule == TacoSchedule::Best), s_(std::get<CsrMatrix>(inputs.at("S"))),
        sRowptr_(s_.rowptr.begin(), s_.rowptr.end()),
        S_(taco::makeCSR<double>("S", dims(s_.rows, s_.cols), sRowptr_.data(), writable(s_.col), writable(s_.val))) {
    if (kernel_ == "sddmm") buildSddmm(std::get<DenseTensor>(inputs.at("B")), std::get<DenseTensor>(inputs.at("C")));
    else if (kernel_ == "spmm_mm") buildSpmmMm(std::get<DenseTensor>(inputs.at("C")), std::get<DenseTensor>(inputs.at("D")));
    else buildRowNormalized();
  }

  TensorData result() const override {
    if (kernel_ == "spmm_mm") return dense_;
    CsrMatrix a = s_;
    a.val = a_.values;
    return a;
  }

  std::string note() const {
    std::string text = stepsNote("");
    if (!cColumnMajor_.empty())
      text += "; C transposed to column-major when prepared, in " + formatMilliseconds(layoutSeconds_) + " (not timed)";
    return text;
  }

 private:
  static std::vector<int> dims(int64_t rows, int64_t cols) { return {static_cast<int>(rows), static_cast<int>(cols)}; }

  TensorBase withPatternOfS(const std::string& name, PatternArrays& arrays) {
    arrays.rowptr = sRowptr_;
    arrays.col = s_.col;
    arrays.values.assign(s_.val.size(), 0.0);
    return taco::makeCSR<double>(name, dims(s_.rows, s_.cols), arrays.rowptr.data(), arrays.col.data(), arrays.values.data());
  }

  // A(i,j) = S(i,j) * B(i,k) * C(k,j). Best: C column-major, so that the dot product over k (the
  // innermost loop) reads it contiguously; the copy is a one-time layout choice, outside the timings.
  void buildSddmm(const DenseTensor& b, const DenseTensor& c) {
    TensorBase A = withPatternOfS("A", a_);
    TensorBase B = denseMatrix("B", b.shape[0], b.shape[1], writable(b.data));
    TensorBase C;
    if (best_) {
      auto start = std::chrono::steady_clock::now();
      cColumnMajor_.resize(c.data.size());
      for (int64_t k = 0; k < c.shape[0]; ++k)
        for (int64_t j = 0; j < c.shape[1]; ++j) cColumnMajor_[j * c.shape[0] + k] = c.data[k * c.shape[1] + j];
      layoutSeconds_ = secondsSince(start);
      C = denseMatrix("C", c.shape[0], c.shape[1], cColumnMajor_.data(), /*columnMajor=*/true);
    } else {
      C = denseMatrix("C", c.shape[0], c.shape[1], writable(c.data));
    }
    IndexVar i("i"), j("j"), k("k");
    taco::Assignment sddmm = assign(A(i, j), S_(i, j) * B(i, k) * C(k, j));
    IndexStmt stmt = best_ ? taco::makeConcreteNotation(taco::makeReductionNotation(sddmm)).reorder({i, j, k}) : defaultSchedule(sddmm);
    if (reductionEnclosesResultLoop(stmt, A.getTensorVar())) {
      std::ostringstream text;
      text << stmt;
      throw Refused("TACO's default schedule " + text.str() + " writes A's values once per k, past their end (TACO issue #73)");
    }
    steps_.push_back(compileStep(stmt, A, {S_, B, C}));
  }

  // A(i,j) = S(i,k) * C(k,h) * D(h,j). Default: TACO's one fused loop nest i,k,h,j. Best: two
  // kernels, T = C @ D and then A = S @ T (fewer flops than a row workspace for S @ C, and faster
  // on most of the measured matrices), each in TACO's default schedule.
  void buildSpmmMm(const DenseTensor& c, const DenseTensor& d) {
    TensorBase C = denseMatrix("C", c.shape[0], c.shape[1], writable(c.data));
    TensorBase D = denseMatrix("D", d.shape[0], d.shape[1], writable(d.data));
    dense_ = DenseTensor({s_.rows, d.shape[1]});
    TensorBase A = denseMatrix("A", s_.rows, d.shape[1], dense_.data.data());
    IndexVar i("i"), j("j"), k("k"), h("h");
    if (!best_) {
      steps_.push_back(compileStep(defaultSchedule(assign(A(i, j), S_(i, k) * C(k, h) * D(h, j))), A, {S_, C, D}));
      return;
    }
    cd_ = DenseTensor({c.shape[0], d.shape[1]});
    TensorBase T = denseMatrix("T", c.shape[0], d.shape[1], cd_.data.data());
    steps_.push_back(compileStep(defaultSchedule(assign(T(k, j), C(k, h) * D(h, j))), T, {C, D}));
    steps_.push_back(compileStep(defaultSchedule(assign(A(i, j), S_(i, k) * T(k, j))), A, {S_, T}));
  }

  // norm_row A(i,j) = S(i,j) / sum_l S(i,l); softmax the same of E = exp(S). Default: TACO
  // recomputes the row sum for each entry. Best: the row sum hoisted into a scalar per row
  // (`where`); softmax first stores E = exp(S) with S's pattern (one exp per entry, faster on
  // most of the measured matrices than computing exp for the sum and again for the quotient).
  void buildRowNormalized() {
    TensorBase A = withPatternOfS("A", a_);
    IndexVar i("i"), j("j"), l("l");
    const bool softmax = kernel_ == "softmax";
    taco::Func exp = storedExp();
    if (!best_) {
      auto f = [&](IndexVar col) -> IndexExpr { return softmax ? IndexExpr(exp(S_(i, col))) : IndexExpr(S_(i, col)); };
      steps_.push_back(compileStep(defaultSchedule(assign(A(i, j), f(j) / taco::sum(l, f(l)))), A, {S_}));
      return;
    }
    TensorBase rows = S_;
    if (softmax) {
      rows = withPatternOfS("E", e_);
      steps_.push_back(compileStep(taco::forall(i, taco::forall(j, assign(rows(i, j), exp(S_(i, j))))), rows, {S_}));
    }
    taco::TensorVar r("r", taco::Type(taco::Float64, {}));
    IndexStmt stmt = taco::forall(i, taco::where(taco::forall(j, assign(A(i, j), rows(i, j) / r())),
                                                 taco::forall(l, accumulate(r(), rows(i, l)))));
    steps_.push_back(compileStep(stmt, A, {rows}));
  }

  std::string kernel_;
  bool best_;
  const CsrMatrix& s_;
  std::vector<int> sRowptr_;  // TACO's positions are 32-bit
  TensorBase S_;
  PatternArrays a_, e_;       // the csr result; softmax's exp(S)
  DenseTensor dense_, cd_;    // spmm_mm's result; C @ D
  std::vector<double> cColumnMajor_;
  double layoutSeconds_ = 0;
};

// A row-major dense tensor of any rank over `data`.
TensorBase denseTensor(const std::string& name, const std::vector<int64_t>& shape, double* data) {
  std::vector<int> dims(shape.begin(), shape.end());
  taco::Format format(std::vector<taco::ModeFormatPack>(shape.size(), taco::Dense));
  taco::Tensor<double> t(name, dims, format);
  taco::TensorStorage storage = t.getStorage();
  std::vector<taco::ModeIndex> modes;
  size_t size = 1;
  for (int d : dims) {
    modes.push_back(taco::ModeIndex({taco::makeArray({d})}));
    size *= static_cast<size_t>(d);
  }
  storage.setIndex(taco::Index(format, modes));
  storage.setValues(taco::makeArray(data, size));
  t.setStorage(storage);
  return t;
}

// mttkrp and ttm on a csf S, TACO's {Sparse,Sparse,Sparse}: S's coordinates and values as they
// are, its positions narrowed to TACO's 32 bits; A dense.
class TacoTensorInstance : public TacoStepsInstance {
 public:
  TacoTensorInstance(const BenchKernel& kernel, const TensorValues& inputs, TacoSchedule schedule)
      : s_(std::get<SparseTensor>(inputs.at("S"))) {
    taco::Format csf({taco::Sparse, taco::Sparse, taco::Sparse});
    taco::Tensor<double> s("S", std::vector<int>(s_.shape.begin(), s_.shape.end()), csf);
    taco::TensorStorage storage = s.getStorage();
    std::vector<taco::ModeIndex> modes;
    for (const LevelArrays& level : s_.levels) {
      positions_.emplace_back(level.pos.begin(), level.pos.end());
      modes.push_back(taco::ModeIndex({taco::makeArray(positions_.back().data(), positions_.back().size()),
                                       taco::makeArray(writable(level.crd), level.crd.size())}));
    }
    storage.setIndex(taco::Index(csf, modes));
    storage.setValues(taco::makeArray(writable(s_.val), s_.val.size()));
    s.setStorage(storage);
    S_ = s;
    const DenseTensor& c = std::get<DenseTensor>(inputs.at("C"));
    TensorBase C = denseTensor("C", c.shape, writable(c.data));
    IndexVar i("i"), j("j"), k("k"), l("l");
    if (kernel.name == "ttm") {
      if (schedule == TacoSchedule::Best)
        throw Refused("taco-best has no ttm schedule of its own: TACO's default order i,j,k,l is the one to write");
      a_ = DenseTensor({s_.shape[0], s_.shape[1], kernel.rank});
      TensorBase A = denseTensor("A", a_.shape, a_.data.data());
      steps_.push_back(compileStep(defaultSchedule(assign(A(i, j, l), S_(i, j, k) * C(k, l))), A, {S_, C}));
      return;
    }
    const DenseTensor& d = std::get<DenseTensor>(inputs.at("D"));
    TensorBase D = denseTensor("D", d.shape, writable(d.data));
    a_ = DenseTensor({s_.shape[0], kernel.rank});
    TensorBase A = denseTensor("A", a_.shape, a_.data.data());
    if (schedule == TacoSchedule::Default) {
      steps_.push_back(compileStep(defaultSchedule(assign(A(i, j), S_(i, k, l) * C(k, j) * D(l, j))), A, {S_, C, D}));
      return;
    }
    taco::TensorVar w("w", taco::Type(taco::Float64, {static_cast<size_t>(kernel.rank)}), taco::dense);
    IndexStmt stmt = taco::forall(
        i, taco::forall(k, taco::where(taco::forall(j, accumulate(A(i, j), w(j) * C(k, j))),
                                       taco::forall(l, taco::forall(j, accumulate(w(j), S_(i, k, l) * D(l, j)))))));
    steps_.push_back(compileStep(stmt, A, {S_, C, D}));
  }

  TensorData result() const override { return a_; }
  std::string note() const { return stepsNote("S {Sparse,Sparse,Sparse}, A dense; "); }

 private:
  const SparseTensor& s_;
  std::vector<std::vector<int>> positions_;  // TACO's positions are 32-bit
  TensorBase S_;
  DenseTensor a_;
};

}  // namespace

bool tacoAvailable() { return true; }

std::unique_ptr<Instance> makeTacoInstance(const BenchKernel& k, const TensorValues& inputs, TacoSchedule schedule,
                                           std::string& note, std::string& why) {
  const TensorData& s = inputs.at("S");
  const std::vector<int64_t> shape = shapeOf(s);
  if (valuesOf(s).size() > INT32_MAX || std::any_of(shape.begin(), shape.end(), [](int64_t n) { return n > INT32_MAX; })) {
    why = "TACO's positions and coordinates are 32-bit";
    return nullptr;
  }
  // TACO's default flags plus the ISA react's kernels and the library baselines are built for
  // (apps/CMakeLists.txt); a TACO_CFLAGS of the user's own is kept.
  setenv("TACO_CFLAGS", "-O3 -ffast-math -std=c99 -march=native", 0);
  try {
    if (k.tensor()) {
      auto instance = std::make_unique<TacoTensorInstance>(k, inputs, schedule);
      note = instance->note();
      return instance;
    }
    auto instance = std::make_unique<TacoInstance>(k, inputs, schedule);
    note = instance->note();
    return instance;
  } catch (const Refused& e) {
    why = e.what();
  } catch (const taco::TacoException& e) {
    why = std::string("TACO: ") + e.what();
  }
  return nullptr;
}
#else
bool tacoAvailable() { return false; }

std::unique_ptr<Instance> makeTacoInstance(const BenchKernel&, const TensorValues&, TacoSchedule, std::string&, std::string& why) {
  why = "react-bench was built without TACO (configure react with -DREACT_TACO_DIR=<TACO install prefix>; docs/benchmarks-taco.md)";
  return nullptr;
}
#endif

}  // namespace react::bench
