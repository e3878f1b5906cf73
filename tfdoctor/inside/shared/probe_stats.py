"""Statistics of the speed probes: robust summaries and the CPU-vs-GPU decision.

Standard library only, Python 3.8+: the probes (tfdoctor/inside/probes/, inside the diagnosed
interpreter) use `compare` to decide whether to retry at a larger size, and tfdoctor.derived.probe_verdicts
uses the very same function to judge the recorded timings, so the two can never disagree.

The decision (`compare`) on the per-call times of the repeats of each side:

* speedup = median(CPU) / median(GPU);
* an exact one-sided Mann-Whitney U test on the raw repeats, in each direction. It is
  distribution-free and rank-based, so one repeat slowed down by another process (the usual
  noise on a shared machine) cannot flip the decision, and it is exact for the small samples a
  probe takes (5-15 repeats), where a normal approximation or a bootstrap is unreliable;
* a practical margin: a difference under 10% is not "acceleration", and it is within the drift
  between two runs measured one after the other (clock boost, thermal state, other processes).

"faster" needs p <= ALPHA in the GPU's favour and speedup >= 1 + MARGIN; "slower" needs p <= ALPHA
against it and speedup <= 1 / (1 + MARGIN); anything else is "no-clear-difference", with the
reason (too few repeats to ever reach ALPHA, spreads that overlap, or a difference under the
margin). With 3 repeats a side the smallest exact p is 1/20 = 0.05, so 3 is the minimum.
"""

from __future__ import annotations

import math

ALPHA = 0.05
"""One-sided significance level of the Mann-Whitney test."""
MARGIN = 0.10
"""Smallest relative difference called faster or slower (10%)."""
EXACT_LIMIT = 2500
"""Largest m*n for which the exact U distribution is computed (about 50 repeats a side)."""

FASTER = "faster"
SLOWER = "slower"
UNCLEAR = "no-clear-difference"


def median(values):
    data = sorted(values)
    n = len(data)
    if n == 0:
        raise ValueError("median of no values")
    mid = n // 2
    return data[mid] if n % 2 else (data[mid - 1] + data[mid]) / 2.0


def quartiles(values):
    """(Q1, median, Q3) by linear interpolation between order statistics (numpy's default,
    statistics.quantiles(method="inclusive")); defined for a single value too."""
    data = sorted(values)
    n = len(data)
    if n == 0:
        raise ValueError("quartiles of no values")

    def at(p):
        pos = p * (n - 1)
        low = int(math.floor(pos))
        high = min(low + 1, n - 1)
        return data[low] + (data[high] - data[low]) * (pos - low)

    return at(0.25), at(0.5), at(0.75)


def summary(values):
    """median, min, max, q1, q3, iqr of `values` (seconds), as a plain dict."""
    q1, med, q3 = quartiles(values)
    return {"median_s": med, "min_s": min(values), "max_s": max(values), "q1_s": q1,
            "q3_s": q3, "iqr_s": q3 - q1}


def _u_counts(m, n):
    """Number of orderings of m x's and n y's for each value of U = #(y < x) pairs: the
    coefficients of the Gaussian binomial [m+n choose m](q), built as
    prod_{i=1..m} (1 - q^(n+i)) / (1 - q^i) (exact integer arithmetic)."""
    degree = m * n
    poly = [1] + [0] * degree
    for i in range(1, m + 1):
        k = n + i
        for d in range(degree, k - 1, -1):
            poly[d] -= poly[d - k]
        for d in range(i, degree + 1):
            poly[d] += poly[d - i]
    return poly


def mann_whitney(x, y):
    """U = #(y_j < x_i) pairs (ties count one half) and the one-sided p-values
    (p_less: y tends to be smaller than x; p_greater: y tends to be larger), exact for
    m*n <= EXACT_LIMIT (ties are rare with timings; they are handled conservatively), else a
    normal approximation with continuity correction."""
    m, n = len(x), len(y)
    if m == 0 or n == 0:
        raise ValueError("Mann-Whitney needs two non-empty samples")
    u = 0.0
    for xi in x:
        for yj in y:
            if yj < xi:
                u += 1.0
            elif yj == xi:
                u += 0.5
    total_pairs = m * n
    if total_pairs <= EXACT_LIMIT:
        counts = _u_counts(m, n)
        total = float(sum(counts))
        # P(U_null >= u) for "y smaller"; ties (half-integers) round against the claim.
        low = int(math.floor(u))
        p_less = sum(counts[low:]) / total
        high = int(math.ceil(u))
        p_greater = sum(counts[:high + 1]) / total
        return u, min(1.0, p_less), min(1.0, p_greater)
    mean = total_pairs / 2.0
    sd = math.sqrt(m * n * (m + n + 1) / 12.0)
    z_less = (u - 0.5 - mean) / sd
    z_greater = (mean - u - 0.5) / sd
    return u, _upper_tail(z_less), _upper_tail(z_greater)


def _upper_tail(z):
    return 0.5 * math.erfc(z / math.sqrt(2.0))


def min_p(m, n):
    """The smallest one-sided p-value an exact test on m and n values can reach."""
    return 1.0 / math.comb(m + n, m)


def compare(cpu_s, gpu_s, alpha=ALPHA, margin=MARGIN):
    """Decide whether the GPU is faster than the CPU from the per-call times of their repeats.

    Returns a plain dict: decision (FASTER, SLOWER or UNCLEAR), speedup (CPU median / GPU median),
    speedup_low/high (CPU Q1 / GPU Q3 and CPU Q3 / GPU Q1: the range the middle halves allow),
    u, p_faster, p_slower, n_cpu, n_gpu, alpha, margin and a one-line reason.
    """
    cpu_s = [float(v) for v in cpu_s]
    gpu_s = [float(v) for v in gpu_s]
    if not cpu_s or not gpu_s:
        raise ValueError("compare needs timings on both sides")
    c1, cmed, c3 = quartiles(cpu_s)
    g1, gmed, g3 = quartiles(gpu_s)
    speedup = cmed / gmed if gmed > 0 else float("inf")
    low = c1 / g3 if g3 > 0 else float("inf")
    high = c3 / g1 if g1 > 0 else float("inf")
    u, p_faster, p_slower = mann_whitney(cpu_s, gpu_s)
    result = {"decision": UNCLEAR, "speedup": speedup, "speedup_low": low, "speedup_high": high,
              "u": u, "p_faster": p_faster, "p_slower": p_slower, "n_cpu": len(cpu_s),
              "n_gpu": len(gpu_s), "alpha": alpha, "margin": margin, "reason": ""}
    if p_faster <= alpha and speedup >= 1.0 + margin:
        result["decision"] = FASTER
        result["reason"] = "GPU faster: every comparison of repeats favours it (p=%.3g)" % p_faster \
            if u == len(cpu_s) * len(gpu_s) else "GPU faster (p=%.3g)" % p_faster
    elif p_slower <= alpha and speedup <= 1.0 / (1.0 + margin):
        result["decision"] = SLOWER
        result["reason"] = "GPU slower (p=%.3g)" % p_slower
    elif min_p(len(cpu_s), len(gpu_s)) > alpha:
        result["reason"] = "too few repeats (%d and %d) to tell at p<=%g" % (
            len(cpu_s), len(gpu_s), alpha)
    elif min(p_faster, p_slower) > alpha:
        result["reason"] = "the repeats overlap too much to tell (p=%.3g)" % min(p_faster, p_slower)
    else:
        result["reason"] = "the difference (%.2fx) is under the %d%% margin" % (
            speedup, int(round(margin * 100)))
    return result
