// reduction.cu: reductions of a strided tensor along any dims, one kernel template over an
// op: sum, prod, mean, amax, amin, var, std, norm, logsumexp, and max/min with the index of
// the extremum (argmax/argmin). The host side is autograd_cy/cuda/reduce.py; the layout is
// NOTE [ReduceLayout] and the block combination NOTE [Block reduction] (reduce.cuh).
#include "reduce.cuh"

// An op says how values fold into a partial state and how states combine:
//   state_t identity()                    the state of no values
//   state_t accumulate(state_t, v, r)     fold in value v (in the accumulate type), found
//                                         at reduction index r
//   state_t combine(state_t, state_t)     merge two states (the partial results of two
//                                         threads, warps or blocks)
//   void write(state_t, out, index, o)    store output o from the state of all its values
// It is built once per thread from the launch's ReduceLayout (numel, scalar).

// ---- sum, prod, mean: In values accumulate in Acc<Out> (Out is In or wider) --------------
template <typename In, typename Out>
struct Sum {
    typedef In in_t;
    typedef Out out_t;
    typedef typename Acc<Out>::type acc_t;
    typedef acc_t state_t;
    __device__ explicit Sum(const ReduceLayout&) {}
    __device__ state_t identity() const { return acc_t(0); }
    template <typename V> __device__ state_t accumulate(state_t s, V v, long long) const {
        return s + (acc_t)v;
    }
    __device__ state_t combine(state_t a, state_t b) const { return a + b; }
    __device__ void write(state_t s, out_t* out, long long*, long long o) const { store(out + o, s); }
};

template <typename In, typename Out>
struct Mean : Sum<In, Out> {
    typedef typename Acc<Out>::type acc_t;
    long long numel;
    __device__ explicit Mean(const ReduceLayout& L) : Sum<In, Out>(L), numel(L.numel) {}
    // numel == 0 gives 0 / 0 = NaN, as torch's mean of nothing.
    __device__ void write(acc_t s, Out* out, long long*, long long o) const {
        store(out + o, s / (acc_t)numel);
    }
};

template <typename In, typename Out>
struct Prod {
    typedef In in_t;
    typedef Out out_t;
    typedef typename Acc<Out>::type acc_t;
    typedef acc_t state_t;
    __device__ explicit Prod(const ReduceLayout&) {}
    __device__ state_t identity() const { return acc_t(1); }
    template <typename V> __device__ state_t accumulate(state_t s, V v, long long) const {
        return s * (acc_t)v;
    }
    __device__ state_t combine(state_t a, state_t b) const { return a * b; }
    __device__ void write(state_t s, out_t* out, long long*, long long o) const { store(out + o, s); }
};

// ---- amax, amin: NaN wins ---------------------------------------------------------------
template <typename T, bool IsMax>
struct Extremum {
    typedef T in_t;
    typedef T out_t;
    typedef typename Acc<T>::type acc_t;
    typedef acc_t state_t;
    __device__ explicit Extremum(const ReduceLayout&) {}
    __device__ state_t identity() const {
        return IsMax ? Limits<acc_t>::lowest() : Limits<acc_t>::highest();
    }
    __device__ state_t accumulate(state_t s, acc_t v, long long) const { return combine(s, v); }
    __device__ state_t combine(state_t a, state_t b) const {
        return IsMax ? max_propagate_nan(a, b) : min_propagate_nan(a, b);
    }
    __device__ void write(state_t s, out_t* out, long long*, long long o) const { store(out + o, s); }
};
template <typename T> struct Amax : Extremum<T, true> { using Extremum<T, true>::Extremum; };
template <typename T> struct Amin : Extremum<T, false> { using Extremum<T, false>::Extremum; };

// ---- max/min with index (and argmax/argmin) ----------------------------------------------
// Torch's CPU rule: the extremum found first (smallest reduction index) wins a tie, and NaN
// beats every number, the first NaN winning. Deciding ties by index, not by who came first,
// makes combine commutative, so any split of the work gives the index torch gives.
template <typename T, bool IsMax>
struct IndexedExtremum {
    typedef T in_t;
    typedef T out_t;
    typedef typename Acc<T>::type acc_t;
    typedef IndexedState<acc_t> state_t;
    __device__ explicit IndexedExtremum(const ReduceLayout&) {}
    __device__ state_t identity() const {
        state_t s;
        s.value = IsMax ? Limits<acc_t>::lowest() : Limits<acc_t>::highest();
        s.index = Limits<long long>::highest();  // loses every tie with a real element
        return s;
    }
    __device__ state_t accumulate(state_t s, acc_t v, long long r) const {
        state_t e;
        e.value = v;
        e.index = r;
        return combine(s, e);
    }
    __device__ state_t combine(state_t a, state_t b) const {
        const bool a_nan = is_nan(a.value), b_nan = is_nan(b.value);
        bool a_wins;
        if (a_nan || b_nan)
            a_wins = a_nan && (!b_nan || a.index < b.index);
        else if (a.value != b.value)
            a_wins = IsMax ? a.value > b.value : a.value < b.value;
        else
            a_wins = a.index < b.index;
        return a_wins ? a : b;
    }
    __device__ void write(state_t s, out_t* out, long long* index, long long o) const {
        store(out + o, s.value);
        index[o] = s.index;
    }
};
template <typename T> struct MaxWithIndex : IndexedExtremum<T, true> {
    using IndexedExtremum<T, true>::IndexedExtremum;
};
template <typename T> struct MinWithIndex : IndexedExtremum<T, false> {
    using IndexedExtremum<T, false>::IndexedExtremum;
};

// ---- var, std ----------------------------------------------------------------------------
// NOTE [Welford merge]
// One pass over the values, numerically stable: summing x and x*x and taking
// E[x^2] - E[x]^2 cancels catastrophically when the mean is large against the spread, so
// each thread keeps Welford's running (n, mean, m2), m2 the sum of squared deviations from
// the running mean; a value x updates it as
//     n' = n + 1,  delta = x - mean,  mean' = mean + delta / n',  m2' = m2 + delta * (x - mean').
// Two partial states (threads, warps, blocks) merge with Chan et al.'s formula:
//     n = na + nb,  delta = mean_b - mean_a,
//     mean = mean_a + delta * nb / n,  m2 = m2a + m2b + delta^2 * na * nb / n,
// which is exact in exact arithmetic and keeps the stability (the update above is the merge
// with nb = 1). An empty state (n = 0) is the identity, which the formula would turn into
// 0/0, so it is checked first. The result is var = m2 / max(0, n - correction) as torch's:
// no degrees of freedom left gives m2 / 0, which is inf, or NaN when m2 is 0.
template <typename T, bool TakeSqrt>
struct Welford {
    typedef T in_t;
    typedef T out_t;
    typedef typename Acc<T>::type acc_t;
    typedef WelfordState<acc_t> state_t;
    acc_t correction;
    __device__ explicit Welford(const ReduceLayout& L) : correction((acc_t)L.scalar) {}
    __device__ state_t identity() const {
        state_t s;
        s.mean = 0;
        s.m2 = 0;
        s.n = 0;
        return s;
    }
    __device__ state_t accumulate(state_t s, acc_t v, long long) const {
        s.n += 1;
        const acc_t delta = v - s.mean;
        s.mean += delta / (acc_t)s.n;
        s.m2 += delta * (v - s.mean);
        return s;
    }
    __device__ state_t combine(state_t a, state_t b) const {
        if (a.n == 0) return b;
        if (b.n == 0) return a;
        state_t s;
        s.n = a.n + b.n;
        const acc_t delta = b.mean - a.mean;
        const acc_t b_share = (acc_t)b.n / (acc_t)s.n;
        s.mean = a.mean + delta * b_share;
        s.m2 = a.m2 + b.m2 + delta * delta * (acc_t)a.n * b_share;
        return s;
    }
    __device__ void write(state_t s, out_t* out, long long*, long long o) const {
        const acc_t n = (acc_t)s.n;
        const acc_t dof = n > correction ? n - correction : acc_t(0);
        const acc_t var = s.m2 / dof;
        store(out + o, TakeSqrt ? reduce_sqrt(var) : var);
    }
};
template <typename T> struct Var : Welford<T, false> { using Welford<T, false>::Welford; };
template <typename T> struct Std : Welford<T, true> { using Welford<T, true>::Welford; };

// ---- norm ----------------------------------------------------------------------------------
// The vector p-norm, p = L.scalar: 0 counts the nonzero values (NaN counts), 1 sums |x|,
// 2 is sqrt(sum x^2), inf and -inf are the max and min of |x| (NaN wins), and any other p
// is (sum |x|^p)^(1/p). The kind is decided once per thread, so the branches are uniform.
template <typename T>
struct Norm {
    typedef T in_t;
    typedef T out_t;
    typedef typename Acc<T>::type acc_t;
    typedef acc_t state_t;
    enum Kind { COUNT_NONZERO, ONE, TWO, MAX_ABS, MIN_ABS, GENERAL };
    acc_t p;
    Kind kind;
    __device__ explicit Norm(const ReduceLayout& L) : p((acc_t)L.scalar) {
        const acc_t inf = Limits<acc_t>::infinity();
        kind = p == 0 ? COUNT_NONZERO : p == 1 ? ONE : p == 2 ? TWO
             : p == inf ? MAX_ABS : p == -inf ? MIN_ABS : GENERAL;
    }
    __device__ state_t identity() const {
        return kind == MIN_ABS ? Limits<acc_t>::infinity() : acc_t(0);
    }
    __device__ state_t accumulate(state_t s, acc_t v, long long) const {
        const acc_t a = reduce_abs(v);
        switch (kind) {
            case COUNT_NONZERO: return s + (v != 0 ? acc_t(1) : acc_t(0));
            case ONE: return s + a;
            case TWO: return s + a * a;
            case MAX_ABS: return max_propagate_nan(s, a);
            case MIN_ABS: return min_propagate_nan(s, a);
            default: return s + reduce_pow(a, p);
        }
    }
    __device__ state_t combine(state_t a, state_t b) const {
        if (kind == MAX_ABS) return max_propagate_nan(a, b);
        if (kind == MIN_ABS) return min_propagate_nan(a, b);
        return a + b;
    }
    __device__ void write(state_t s, out_t* out, long long*, long long o) const {
        if (kind == TWO) s = reduce_sqrt(s);
        else if (kind == GENERAL) s = reduce_pow(s, acc_t(1) / p);
        store(out + o, s);
    }
};

// ---- logsumexp -----------------------------------------------------------------------------
// NOTE [logsumexp]
// log(sum exp(x)) overflows for large x unless shifted by the maximum m: log(sum exp(x - m))
// + m. Torch shifts by m only when m is finite (shift 0 otherwise), so that a row of -inf
// gives log(0) = -inf, any +inf gives inf and a NaN gives NaN. In one pass each state keeps
// its running max and the sum of exp(x - shift(max)); merging two states rescales each sum
// to the new shift: sum * exp(shift_old - shift_new). A zero sum stays zero (its shift may be
// far from the new one, and 0 * inf would be NaN), and a sum already at the new shift is not
// rescaled, so a value below the running max costs one exp.
template <typename T>
struct LogSumExp {
    typedef T in_t;
    typedef T out_t;
    typedef typename Acc<T>::type acc_t;
    typedef ExpSumState<acc_t> state_t;
    __device__ explicit LogSumExp(const ReduceLayout&) {}
    static __device__ acc_t shift(acc_t m) { return is_inf(m) ? acc_t(0) : m; }
    static __device__ acc_t rescaled(const state_t& s, acc_t new_shift) {
        const acc_t old_shift = shift(s.max);
        if (s.sum == 0 || old_shift == new_shift) return s.sum;
        return s.sum * reduce_exp(old_shift - new_shift);
    }
    __device__ state_t identity() const {
        state_t s;
        s.max = Limits<acc_t>::lowest();
        s.sum = 0;
        return s;
    }
    __device__ state_t accumulate(state_t s, acc_t v, long long) const {
        state_t e;
        e.max = v;
        e.sum = reduce_exp(v - shift(v));  // 1, or exp(inf) = inf, exp(-inf) = 0, NaN
        return combine(s, e);
    }
    __device__ state_t combine(state_t a, state_t b) const {
        state_t s;
        s.max = max_propagate_nan(a.max, b.max);
        const acc_t new_shift = shift(s.max);
        s.sum = rescaled(a, new_shift) + rescaled(b, new_shift);
        return s;
    }
    __device__ void write(state_t s, out_t* out, long long*, long long o) const {
        store(out + o, reduce_log(s.sum) + shift(s.max));
    }
};

// ---- the kernel ----------------------------------------------------------------------------
// NOTE [Two passes]
// Output o's reduction is cut into L.splits pieces (1 unless the host found too few outputs
// to busy the device); unit u = o * splits + piece is reduced by one row of a block
// (NOTE [Block reduction]), and blocks take units in a grid-stride loop, so any grid covers
// them all. With one piece the row writes the output. With several, it writes its partial
// state to slot u of `partials` (REDUCE_SLOT_DOUBLES doubles a slot, the largest state
// fits), and a second launch of the same kernel (from_partials) reduces each output's
// slots o * splits .. o * splits + splits-1, combining states instead of accumulating
// values, and writes the output. The result is deterministic, unlike atomics, and the
// second pass carries every op's state (Welford's counts, argmax's indices) unchanged.
#define REDUCE_SLOT_DOUBLES 3

template <typename State>
__device__ __forceinline__ State* partial_slot(double* partials, long long slot) {
    static_assert(sizeof(State) <= REDUCE_SLOT_DOUBLES * sizeof(double) && alignof(State) <= alignof(double),
                  "a partial state must fit a slot of the partial buffer");
    return reinterpret_cast<State*>(partials + REDUCE_SLOT_DOUBLES * slot);
}

// x: the input (element 0 of its view); out: n_out outputs, contiguous; index: n_out int64
// (ops with an index; an empty array otherwise); partials: n_out * splits slots when
// splits > 1 or from_partials (an empty array otherwise). Launch with block (lanes, rows).
template <typename Op>
__global__ void reduce(const typename Op::in_t* x, typename Op::out_t* out, long long* index,
                       double* partials, ReduceLayout L) {
    typedef typename Op::state_t State;
    const Op op(L);
    const long long units = L.n_out * L.splits;
    for (long long first = (long long)blockIdx.x * blockDim.y; first < units;
         first += (long long)gridDim.x * blockDim.y) {
        const long long unit = first + threadIdx.y;
        const bool active = unit < units;
        const long long o = unit / L.splits;
        State s = op.identity();
        if (active) {
            const long long base = kept_offset(L, o);
            const long long begin = (unit % L.splits) * L.chunk;
            const long long end = min(begin + L.chunk, L.n_reduced);
            if (L.from_partials) {
                for (long long r = begin + threadIdx.x; r < end; r += blockDim.x)
                    s = op.combine(s, *partial_slot<State>(partials, base + reduced_offset(L, r)));
            } else {
                for (long long r = begin + threadIdx.x; r < end; r += blockDim.x)
                    s = op.accumulate(s, load(x + base + reduced_offset(L, r)), r);
            }
        }
        s = block_reduce(op, s);  // every thread, active or not (warp shuffles, barriers)
        if (active && threadIdx.x == 0) {
            if (L.splits > 1) *partial_slot<State>(partials, unit) = s;
            else op.write(s, out, index, o);
        }
    }
}
