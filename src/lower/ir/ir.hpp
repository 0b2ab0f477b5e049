// The typed loop IR (internal to src/lower; docs/design.md): what one kernel does, as nodes.
//
// Lowering turns an index tree into this IR (lower_tree.cpp); passes (src/lower/passes/) each make
// one scheduling decision on it; the emitters (src/lower/emit/) only print it. Nodes are immutable
// and shared: a pass rebuilds what it changes (Mutator) and keeps the rest.
//
// Accesses keep their logical indices (`Access`: tensor + one index per dimension) until the
// storage pass turns them into loads at offsets that the tensor's levels compute (`Load`), so that
// the analyses passes run (does this write move with that loop? is this read invariant?) ask about
// indices, never about printed text.
#pragma once

#include "lower/lower.hpp"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace react::ir {

// What an identifier in generated code stands for. Every name the IR holds carries its role; the
// printer spells it (mangle, ir/names.hpp), so user names and react's own names never meet.
enum class Role {
  Values,         // a tensor's values: a dense array, or a sparse tensor's stored values
  Positions,      // a compressed level's positions (parent entries + 1): Name::level says which level
  Coordinates,    // a compressed or singleton level's coordinates: Name::level says which level
  StoredEntries,  // a sparse tensor's number of stored entries
  Size,           // the elements a tensor holds in memory (bounds checks, fills)
  Buffer,         // the storage that owns a temporary
  TeamBlock,      // a Kokkos team's scratch for a temporary: every row of the team
  Scalar,         // a temporary held in a local variable
  Extent,         // an index's extent, passed at run time
  Index,          // an index's coordinate (a dense loop's counter)
  Position,       // a position loop's counter: the position of the stored entry it visits
  EntrySources,   // a column walk's csr positions of its entries (ReactTensor::source)
  Generated,      // react's own names (acc, lane_acc, hoisted0): never derived from user text
};
struct Name {
  Role role = Role::Generated;
  std::string text;
  int level = -1;  // Positions, Coordinates: the storage level of tensor `text` whose array this is
  bool operator==(const Name& o) const { return role == o.role && text == o.text && level == o.level; }
  bool operator!=(const Name& o) const { return !(*this == o); }
  bool operator<(const Name& o) const {
    if (role != o.role) return role < o.role;
    return text != o.text ? text < o.text : level < o.level;
  }
};

// Float32 and Float64 are value types (a tensor's values, and everything computed from them); a
// statement computes in its left-hand side's tensor's value type, and an operand of another type
// is converted by a Cast (docs/semantics.md, "Value types"). The verifier checks that no value
// changes type without one.
enum class Type { Bool, Int32, Int64, Float32, Float64 };
const char* toString(Type t);  // "bool", "i32", "i64", "f32", "f64"
bool isFloat(Type t);
Type typeOf(ValueType v);       // a tensor value type's IR type
ValueType valueTypeOf(Type t);  // the inverse, for a float type
// The IR type of a tensor's values.
Type valueTypeOf(const TensorStorage& s);

// ---------------------------------------------------------------------------------------------
// Expressions
enum class ExprKind {
  IntImm, FloatImm, StringImm,
  Var,     // a named scalar: counter, coordinate, extent, local, accumulator
  Access,  // tensor(indices): before the storage pass
  Load,    // array[index]: after it (array: a Name with role Values, Positions or Coordinates)
  Neg, Binary, Call,
};
enum class BinOp { Add, Sub, Mul, Div, Lt, Le, Gt, Ge, Eq, Ne };
// Calls. Max, Min, Where: react_max/min/where (both operands read: see emit/cpp_printer.cpp);
// Checked(offset, size, what): a bounds-checked offset; Select(c, a, b): a where c holds, else b,
// evaluating only that one (a value read only where its position was found); Cast(x): x converted
// to the call's type (an integer to a float, a value to the other value type);
// RowOf(positions, rows, p[, from]): the row of a matrix's stored entry p, the last r in [0, rows)
// with positions[r] <= p (`positions` a Var of role Positions, p in [0, nnz)): a binary search
// over all rows, or, given a row `from` at or before p's, steps doubling from there, then halving
// (a chunk's last row is a row or two past its first: a few loads instead of a whole search).
// Find(coordinates, lo, hi, c): the position of coordinate c among coordinates[lo, hi) (a Var of
// role Coordinates, increasing there), -1 where it is not stored: a binary search.
// ChunkLength(count, lanes): the stored entries a chunk of fibre-chunks holds (Kokkos, host only:
// react_fibre_chunk_length in the prelude).
enum class Callee { Exp, Sqrt, Log, Max, Min, Where, Checked, Select, RowOf, Find, ChunkLength, Cast };

struct ExprNode;
using Expr = std::shared_ptr<const ExprNode>;

struct ExprNode {
  ExprKind kind = ExprKind::IntImm;
  Type type = Type::Int64;
  int64_t intValue = 0;           // IntImm
  double floatValue = 0;          // FloatImm: a value of its type (a float32 one rounded to float32)
  std::string text;               // StringImm
  Name name;                      // Var; Load: the array
  std::string tensor;             // Access; Load of values: the access it came from (bounds checks)
  std::vector<std::string> indices;  // the same: one logical index per dimension
  BinOp op = BinOp::Add;          // Binary
  Callee callee = Callee::Exp;    // Call
  std::vector<Expr> args;         // operands; Load: {offset}
};

Expr intImm(int64_t v);
Expr floatImm(double v, Type t = Type::Float64);  // v rounded to t
Expr stringImm(const std::string& text);
Expr var(Name n, Type t);
Expr access(const std::string& tensor, std::vector<std::string> indices, Type t = Type::Float64);
Expr load(Name array, Expr offset, Type t);
Expr neg(Expr a);
Expr binary(BinOp op, Expr a, Expr b);  // comparisons of values give a value (1 or 0), of integers a Bool
Expr call(Callee c, std::vector<Expr> args, Type t);
Expr cast(Expr a, Type t);  // a itself when it has type t, else Cast(a) of type t
bool isComparison(BinOp op);
// Structural equality: same kinds, names, values and operands.
bool equal(const Expr& a, const Expr& b);

// ---------------------------------------------------------------------------------------------
// Statements
enum class StmtKind {
  Block,     // statements in order; `scoped` ones print braces
  Comment,   // a line of text (user text made safe by the printer)
  Let,       // declares `name` of `type` = value; `isMutable` ones may be assigned later
  Assign,    // target (Var, Access or Load) = / += / max= value
  For,       // counter over [lo, hi), scheduled
  Allocate,  // storage for a temporary's values, every element `init`; or an index array (allocateIndices)
  Fill,      // every element of a tensor's values := init
  Single,    // Kokkos: one lane of the row runs the body; elsewhere the body as is
  IfDevice,  // Kokkos: body[0] where the kernel runs on a device, body[1] on the host
  // Kokkos: body[0] where a row of a csr matrix holds more than `longRow` stored entries, else
  // body[1] (two forms of one nest, alike but for speed); `name`: the matrix's row positions,
  // `value`: its rows. Measured once per positions array (react_longest_row in the prelude).
  IfLongRows,
  // Kokkos: body[0] where the kernel was given the column walk whose stored entries `name` (role
  // StoredEntries) counts, and it holds any, else body[1] (two forms of one nest, alike but for
  // speed). A column walk is a prepared argument, a csr input's entries by columns
  // (LoopProgram::columnWalks): Kernel::bind makes it where the matrix's rows are more skewed
  // than its columns, and gives none elsewhere (passes/column_walks.cpp).
  IfColumnWalk,
  // Kokkos: the stored entries [0, hi) of a csr matrix (`name`: its row positions, `value`: its
  // rows) in runs of `runLength` consecutive entries, one run per lane whatever their rows;
  // body per entry, `counter` its position and `rowCounter` its row. With a `target` (an element
  // of an array of the rows, at rowCounter), the body adds into the accumulator `reduceVar`, and
  // each row's part of a run is added into the row's element: stored where the row lies inside
  // the run, else atomically, a run's first row after the lanes of a warp that share it are
  // combined (passes/reduction_runs.cpp says why); `reduceOp` a sum or a maximum (atomic, and the
  // accumulator starting from the identity). Where the target's array is alternating
  // (StmtNode::alternating), the runs also set its other half back to its initial value. With
  // `runRows` (an index array, see allocateIndices), runs that record them (`recordsRunRows`)
  // store each run's first row in it (or keep the row an earlier call stored, where the positions
  // confirm it), and the others start from the row recorded for the run of `runRowsEvery`
  // entries holding their first entry, instead of a search over all the rows.
  EntryRuns,
  // Kokkos: the stored entries [0, hi) of a matrix whose second level is compressed (`name`: its
  // positions, `value`: its first level's extent, rows in csr, columns in csc) in chunks of 32 consecutive entries, one chunk per team thread, `counter` an entry's
  // position and `rowCounter` its row. body[0] binds the entry's coordinate (a Let); body[1], a
  // LaneReduce loop over a constant [0, trips), sums into the accumulator `reduceVar` (of
  // `reduceType`, 0 before each entry, declared by the node) one term per iteration read from
  // the row, the coordinate and the loop's counter alone; the statements after it store at the
  // entry from its sum. On a GPU each lane of a warp takes an entry and the lanes then run along
  // the loop for several entries at once (passes/dense_lanes.cpp says why).
  EntryLanes,
  Nest,      // one top-level loop nest: one kernel launch on Kokkos
  // A tensor the kernel makes from its inputs (an input's transposed copy) unless the caller
  // gives it made: Kernel::bind makes it once, a kernel bound to views at every run. Storage of
  // `value` elements of `type` for `name`, written by the body before any read.
  Prepare,
  // Co-iteration (two fingers): the positions of one compressed level of each of `fingers`, walked
  // together in order of their coordinates; `counter` (an Index) takes every coordinate all of
  // them hold (intersection) or any holds (union, `unite`), in increasing order, and body[k] runs
  // where exactly the fingers of caseMasks[k] hold it (bit f: fingers[f]). Inside, finger f's
  // position and coordinate are mergePosition / mergeCoordinate of its pattern and level; an
  // `appended` pattern's position starts at its `lo` and advances by one after each case run;
  // given a `hi` (above the assembled pattern's last level, which keeps only entries with entries
  // under them), a case runs, and the position advances, only where the appended level holds
  // the counter at that position.
  Merge,
};
enum class Update { Set, Add, Max };

// How a loop's iterations are spread over the machine. Parallel and ParallelReduce are a nest's
// outermost loop (threads; Kokkos: one row per team thread); Vector runs iterations on vector
// lanes (OpenMP `omp simd`, Kokkos ThreadVectorRange) and LaneReduce combines them into
// `reduceVar` (Kokkos). ParallelReduce combines into `reduceVar` too.
enum class Schedule { Serial, Parallel, ParallelReduce, Vector, LaneReduce };
const char* toString(Schedule s);

// What lowering knows of a loop's iterations from the index tree: independent, or dependent only
// through one scalar they all reduce into (then `reduceTarget`, `reduceOp`), or neither. Lane
// mapping reads it for the loops of a row.
enum class Iterations { Dependent, Independent, ReduceScalar };

// A temporary every worker of a Parallel loop holds privately (OpenMP: per thread; Kokkos: per
// row in team scratch), of `size` elements of `type` starting at `init`.
struct PrivateBuffer {
  std::string tensor;
  double init = 0;
  Type type = Type::Float64;
};

// One level of a pattern a Merge walks: its positions [lo, hi) under the parent's position.
struct MergeFinger {
  std::string pattern;
  int level = -1;
  Expr lo, hi;  // an appended pattern's hi: null at its last level (see StmtKind::Merge)
};
// The names of a finger's position and coordinate inside a Merge ("p1_S", "ix1_S"): a level
// number sets them apart from a position loop's "p_j" and a counter's "ix_j".
Name mergePosition(const std::string& pattern, int level);
Name mergeCoordinate(const std::string& pattern, int level);

// What a nest computes when it is a plain dense product, out += a · b of row-major matrices
// (m x k times k x n): a kernel library with a tuned product (cuBLAS on a CUDA Kokkos) calls it
// instead of launching the nest (passes/dense_product.cpp).
struct DenseProduct {
  std::string out, a, b;
  Expr m, n, k;
  // out = a · b: the only zeros out held before were there for this product (a temporary's
  // allocation, or the kernel's fill of its result), and passes/dense_product.cpp dropped them, so
  // a library writes out without reading it; where the nest runs instead, a fill of out comes first.
  bool overwrites = false;
};

struct StmtNode;
using Stmt = std::shared_ptr<const StmtNode>;

struct StmtNode {
  StmtKind kind = StmtKind::Block;
  std::vector<Stmt> body;  // Block, For, Single, Nest, Prepare: the statements inside; IfDevice: {device, host}
  bool scoped = false;     // Block
  std::string text;        // Comment; Nest: its name
  // Let, Allocate, Fill, Prepare
  Name name;
  Type type = Type::Float64;  // Let: the variable's; Allocate, Fill, Prepare: the elements'
  Expr value;              // Let, Assign: the value; Allocate, Prepare: the size
  bool isMutable = false;
  double init = 0;         // Allocate, Fill
  bool parallelInit = false;  // Allocate: shared by every thread, so every thread fills it (first touch)
  bool uninitialized = false; // Allocate: every element is set before it is read: `init` unused, not filled
  // Allocate (Kokkos): an array that one entry-runs loop adds into (its target), kept between
  // calls in two halves that take turns; the loop sets the other half back to `init` for the next
  // call, so no fill runs (ReactAlternatingArray in the Kokkos prelude).
  bool alternating = false;
  // Assign
  Expr target;
  Update update = Update::Set;
  // Assign: workers that run at once may update the same element (fibre-chunks splits a row over
  // team threads), so the update is atomic: an Add into memory (an access or a load), never a
  // variable. Atomic adds reassociate the sum: only under the reassociated floating-point order.
  bool atomic = false;
  // For
  Name counter;
  Expr lo, hi;
  Schedule schedule = Schedule::Serial;
  Iterations iterations = Iterations::Dependent;
  Expr reduceTarget;         // Iterations::ReduceScalar: what the iterations reduce into (a scalar access or a variable)
  ReduceOp reduceOp = ReduceOp::Sum;  // ReduceScalar, ParallelReduce, LaneReduce, a reducing masked-blocks loop
  Name reduceVar;            // ParallelReduce, LaneReduce, a reducing masked-blocks loop: the accumulator the body updates
  // LaneReduce (OpenMP): further accumulators of the same operation and type that the same lanes
  // reduce, one per iteration jam-entries runs at once
  std::vector<Name> jointReduceVars;
  Type reduceType = Type::Float64;  // ParallelReduce, LaneReduce: the accumulator's type
  std::vector<PrivateBuffer> privates;  // Parallel
  Expr laneTrips;            // Parallel, Kokkos: the rows' lane-loop trip count (lane mapping)
  // Parallel, ParallelReduce (OpenMP): when set, each thread takes one contiguous share of the
  // rows of equal work, a row weighing `entryWork` per stored entry (balancePositions[r + 1] -
  // balancePositions[r]) plus `rowWork`; otherwise rows are handed out dynamically, in order in
  // chunks of up to 256 rows where `rowChunks` (react_row_chunk; Parallel only), else 16 at a time.
  Name balancePositions;
  int64_t entryWork = 0, rowWork = 0;
  bool rowChunks = false;
  // For (OpenMP): where the kernel's compiler targets AVX-512 (REACT_MASKED_BLOCKS), the iterations
  // run in blocks of one vector's lanes, the lanes past `hi` masked off, each load and store of
  // the body a masked vector one at the counter; a body that reduces into `reduceVar` (a Serial
  // or LaneReduce loop; a sum or a maximum, `reduceOp`) reduces on the lanes, combined into it
  // after the loop. Elsewhere the loop runs as its schedule says (passes/masked_blocks.cpp).
  bool maskedBlocks = false;
  bool forcedOrder = false;  // IfDevice: the device's order also on the host (tests)
  int64_t longRow = 0;       // IfLongRows
  Name rowCounter;           // EntryRuns, EntryLanes
  int64_t runLength = 0;     // EntryRuns
  Name runRows;              // EntryRuns: the runs' first rows, where recorded (a generated index array)
  int64_t runRowsEvery = 0;  // EntryRuns: the run length of the runs that record them
  bool recordsRunRows = false;  // EntryRuns: these runs search their first rows and record them
  // Merge (with `counter` and `body`)
  std::vector<MergeFinger> fingers;
  bool unite = false;
  std::vector<unsigned> caseMasks;  // one per statement of the body
  std::optional<MergeFinger> appended;
  // Nest: the product it computes, where a library may compute it instead (DenseProduct)
  std::optional<DenseProduct> product;
};

Stmt block(std::vector<Stmt> body, bool scoped = false);
Stmt comment(const std::string& text);
Stmt let(Name n, Type t, Expr value, bool isMutable = false);
Stmt assign(Expr target, Expr value, Update u = Update::Set);
Stmt atomicAdd(Expr target, Expr value);  // target += value, atomically (StmtNode::atomic)
Stmt forLoop(Name counter, Expr lo, Expr hi, std::vector<Stmt> body, Schedule s = Schedule::Serial);
Stmt allocate(const std::string& tensor, Type t, Expr size, double init, bool parallelInit);
// Storage for `size` int64 indices under a generated name, no tensor's: each set before it is read.
Stmt allocateIndices(Name name, Expr size);
Stmt fill(const std::string& tensor, Type t, double init);
Stmt single(std::vector<Stmt> body);
Stmt ifDevice(Stmt onDevice, Stmt onHost, bool forced);
Stmt ifLongRows(Name positions, Expr rows, int64_t longRow, Stmt longForm, Stmt rowForm);
Stmt ifColumnWalk(Name storedEntries, Stmt columnForm, Stmt rowForm);
// Entry runs (see StmtKind::EntryRuns) that add into `target` through `accumulator` when one is
// given (a null target: none).
Stmt entryRuns(Name entry, Name row, Name positions, Expr rows, Expr entries, int64_t runLength, std::vector<Stmt> body,
               Expr target = nullptr, Name accumulator = {}, Type accumulatorType = Type::Float64);
// Entry lanes (see StmtKind::EntryLanes): `coordinate` binds the entry's coordinate, `dot` sums
// into `accumulator`, `uses` store at the entry.
Stmt entryLanes(Name entry, Name row, Name positions, Expr rows, Expr entries, Stmt coordinate, Stmt dot, std::vector<Stmt> uses,
                Name accumulator, Type accumulatorType);
Stmt nest(const std::string& name, std::vector<Stmt> body);
Stmt prepare(const std::string& tensor, Type t, Expr size, std::vector<Stmt> body);
Stmt merge(Name counter, std::vector<MergeFinger> fingers, bool unite, std::optional<MergeFinger> appended,
           std::vector<unsigned> caseMasks, std::vector<Stmt> cases);
// A copy of `s` to modify (passes build changed nodes from their originals).
std::shared_ptr<StmtNode> copy(const Stmt& s);

// ---------------------------------------------------------------------------------------------
// A kernel as the IR: LoopProgram (lower.hpp) holds its arguments, sizes and statements.
using KernelIR = LoopProgram;

// The text form (golden tests, `react-gen -print-loops`): one statement per line, indented.
std::string print(const Stmt& s);
std::string print(const Expr& e);
std::string print(const KernelIR& k);

// Checks what every pass must keep; throws an "internal compiler error" naming the statement:
// every Var is declared before use in its scope, with the type it was declared with; a counter is
// not bound twice; accesses name a known tensor with one index per dimension, each bound; only
// declared mutable variables and memory are assigned; ParallelReduce and LaneReduce name a
// declared mutable accumulator of their reduceType. Types: an access, a load of a tensor's values,
// an allocation, a fill and a private buffer have the tensor's value type; where a value type
// meets another (the operands of an operation or a call, a Let or an Assign and its value) they
// are equal: only a Cast converts.
void verify(const KernelIR& k);

}  // namespace react::ir
