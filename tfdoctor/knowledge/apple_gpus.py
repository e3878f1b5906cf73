"""Apple-silicon GPUs, M1 to M5: FP32 peak and memory bandwidth, each with its sources.

Used to put a probe's achieved GFLOP/s next to what the chip can do at most. The chip is known
from the CPU brand string (`sysctl machdep.cpu.brand_string`, e.g. "Apple M2 Pro"), which does
not say how many GPU cores this particular Mac has: every chip comes in two or three GPU
configurations, so the peak is a range, smallest to largest configuration.

FP32 peak = GPU cores x 128 ALUs x 2 FLOP (one FMA) x GPU clock. Apple published TFLOPS figures
for M1-generation chips and the M2; for M1/M2 Pro, Max and Ultra the figures follow from the core
counts and the clocks measured by philipturner/metal-benchmarks (GUIDE section 3 lists them as
approximate public figures). Apple has published no GPU clocks or TFLOPS for M3, M4 and M5: those
are third-party estimates (`fp32_estimate`), and the estimates disagree on the M4's clock, so
their ranges are wider. For the M5 family Apple gives GPU core counts and bandwidth, and an "over
4x peak GPU compute for AI" against the M4 that counts the new per-core Neural Accelerators, not
FP32; the M5's FP32 figures come from a third-party spec table (1.74 GHz) and one measurement (a
fanless M5 at 1.578 GHz reaching 3.76 TFLOPS), and the M5 Pro and Max ones scale the M5's clocks
to their core counts. Memory bandwidth is Apple's figure except for the M1 (68 GB/s, a
third-party figure from its LPDDR4X-4266 128-bit bus).

These are peaks: a dense float32 matmul on Metal reaches a fraction of them (about 8 of 10.6
TFLOPS on an M1 Max from size 2048 up, github tlkh/tf-metal-experiments, GUIDE section 3).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

SOURCES = {
    "guide": "GUIDE section 3 (Apple GPU FP32 peaks, approximate public figures; M3/M4 third-party)",
    "turner": "https://github.com/philipturner/metal-benchmarks (README: GPU cores, clocks, GFLOPS F32 "
              "of M1, M1 Pro/Max/Ultra 1278-1296 MHz, M2 1398 MHz)",
    "apple-m1-pro-max": "Apple newsroom, 'Introducing M1 Pro and M1 Max' (2021-10-18), as reposted at "
                        "https://semiwiki.com/forum/index.php?threads/introducing-m1-pro-and-m1-max-the-most-powerful-chips-apple-has-ever-built.14790/ "
                        "and reported at https://en.trend.az/world/3500298.html: 200 GB/s and 400 GB/s",
    "apple-m1-tflops": "Apple's M1 Pro/Max figures of 5.2 and 10.4 TFLOPS as reported at "
                       "https://techzone.top/apple-m1-pro-and-m1-max-are-up-to-4-times-faster-than-the-first-m1-computer-tecnoblog/",
    "m1-ultra": "https://www.notebookcheck.net/Apple-M1-Ultra-revealed-with-UltraFusion-architecture-a-20-core-CPU-and-up-to-a-64-core-GPU.607117.0.html "
                "(800 GB/s); https://www.cpu-monkey.com/en/cpu-apple_m1_ultra_64_gpu (21.2 / 15.9 TFLOPS)",
    "m2": "https://askgeek.io/en/cpus/Apple/M2-8-core-GPU and .../M2-10-core-GPU (2.863 / 3.578 TFLOPS at "
          "1398 MHz); Apple: 100 GB/s",
    "m2-family": "https://kiwix.haohe.fun/content/wikipedia_en_all_maxi_2024-01/A/M2_Max (Wikipedia: M2 "
                 "8/10, M2 Pro 16/19, M2 Max 30/38, M2 Ultra 60/76 GPU cores)",
    "ars-m4": "https://thecloudconsultancy.co/news/apple-debuts-m4-processor-in-new-ipad-pro/ (Ars "
              "Technica: M4 120 GB/s, up from 100 GB/s in both the M2 and the M3)",
    "m3-pro": "https://gigazine.net/gsc_news/en/20231101-apple-m3-pro-memory-bandwidth (Apple's spec sheet: "
              "M3 Pro 14- or 18-core GPU, 150 GB/s)",
    "m3-family": "https://pcextreme.com.br/apple-announces-m3-soc-family-m3-m3-pro-and-m3-max-make-their-marks/ "
                 "(AnandTech: M3 10-core, M3 Pro 18-core, M3 Max 40-core GPU)",
    "m4-max": "https://www.macrumors.com/2024/10/30/apple-announces-m4-max-chip/ and "
              "https://macmegasite.com/2024/10/30/m4-max-chip-has-16-core-cpu-40-core-gpu-and-35-increase-in-memory-bandwidth "
              "(M4 Max up to 546 GB/s, M3 Max 400 GB/s)",
    "m4-pro": "https://nutechbrt.com/apple-announces-m4-max-chip-debuting-on-the-macbook-pro (M4 up to 10-core "
              "GPU; M4 Pro up to 20-core, 273 GB/s; M4 Max up to 40-core, up to 546 GB/s)",
    "m3-ultra": "https://techpowerup.com/news-tags/Mac%20Studio (M3 Ultra 80-core GPU, 819 GB/s); "
                "https://bgr.com/tech/inside-apples-new-m3-ultra-processor/ (60/80-core)",
    "hmc-tech": "https://hmc-tech.com/gpu/ (third-party estimates: M3 Pro 18-core 6.44, M3 Max 30/40-core "
                "10.74/14.32 TFLOPS at 1398 MHz; M4 8/10-core 3.01/3.76 and M4 Pro 16/20-core 6.02/7.53 "
                "at 1470 MHz; M4 Max 32-core 13.74 at 1678 MHz)",
    "apple-specs-unstored": "Apple's tech specs pages (lower-bandwidth binned Max chips: M3 Max 30-core 300 GB/s, "
                            "M4 Max 32-core 410 GB/s); not among the sources stored with tfdoctor",
    "apple-m5": "Apple's M5 announcement (2025-10-15) as reported at https://www.fonearena.com/blog/466700/apple-m5-specs-features.html "
                "and https://www.tomshardware.com/pc-components/cpus/apple-unveils-m5-chip-with-10-core-cpu-and-10-core-gpu-company-says-3nm-chip-offers-4x-peak-gpu-performance-over-m4-for-ai-45-percent-graphics-uplift "
                "(10-core GPU with a Neural Accelerator in each core, 153 GB/s, 'over 4x peak GPU compute for AI' vs M4)",
    "hmc-tech-m5": "https://hmc-tech.com/gpu/apple-10-core-m4-fl-vs-apple-10-core-m5-fl and "
                   "https://hmc-tech.com/gpu/apple-8-core-m5-fl-vs-intel-iris-540-1000mhz (third-party estimates: M5 "
                   "10-core 4.45 TFLOPS FP32 at 1740 MHz, 8-core 3.23 TFLOPS at 1578 MHz)",
    "m5-roofline": "https://michaelstinkerings.org/apple-m5-gpu-roofline-analysis (measured on a MacBook Air M5, 10-core "
                   "GPU: FP32 peak 3,760 GFLOPS at a 1578 MHz clock read with powermetrics; 122 GB/s usable of 153.6)",
    "apple-m5-pro-max": "Apple's M5 Pro / M5 Max announcement (2026-03-03) as reported at "
                        "https://www.lowyat.net/2026/385170/apple-m5-pro-m5-max and "
                        "https://mikeshouts.com/apple-m5-pro-m5-max/amp (M5 Pro up to 20-core GPU, up to 307 GB/s; "
                        "M5 Max up to 40-core GPU, up to 614 GB/s)",
    "ars-m5-pro-max": "https://usagoldmines.com/testing-apples-2026-16-inch-macbook-pro-m5-max-and-its-new-performance-cores-andrew-cunningham-usagoldmines-com "
                      "(Ars Technica's review: the M5 Pro uses a 20-core GPU die, the M5 Max a 40-core GPU die)",
}


@dataclass(frozen=True)
class AppleGpu:
    chip: str
    """"M2 Pro"."""
    gpu_cores: tuple[int, ...]
    """The GPU configurations this chip ships in (the brand string does not say which)."""
    fp32_tflops: tuple[float, float]
    """FP32 peak of the smallest and of the largest configuration."""
    bandwidth_gbs: tuple[float, float]
    """Unified memory bandwidth, smallest and largest configuration."""
    fp32_estimate: bool
    """The FP32 figures are third-party estimates (Apple published no clock or TFLOPS)."""
    bandwidth_estimate: bool
    sources: tuple[str, ...]
    note: str = ""

    @property
    def cores_text(self) -> str:
        return "/".join(str(c) for c in self.gpu_cores) + "-core GPU"

    def peak_text(self) -> str:
        low, high = self.fp32_tflops
        peak = f"{high:.1f}" if abs(high - low) < 0.05 else f"{low:.1f}-{high:.1f}"
        return (f"{peak} TFLOPS FP32 ({self.cores_text}"
                + ("; third-party estimate" if self.fp32_estimate else "") + ")")

    def fraction_of_peak(self, gflops: float) -> tuple[float, float]:
        """`gflops` as a fraction of the largest and of the smallest configuration's peak."""
        low, high = self.fp32_tflops
        return gflops / (high * 1000.0), gflops / (low * 1000.0)

    def to_dict(self) -> dict:
        return {"chip": self.chip, "gpu_cores": list(self.gpu_cores),
                "fp32_tflops": list(self.fp32_tflops), "bandwidth_gbs": list(self.bandwidth_gbs),
                "fp32_estimate": self.fp32_estimate, "bandwidth_estimate": self.bandwidth_estimate,
                "sources": [SOURCES[s] for s in self.sources], "note": self.note}


def _gpu(chip, cores, tflops, bandwidth, estimate, sources, note="", bandwidth_estimate=False):
    return AppleGpu(chip, tuple(cores), tuple(tflops), tuple(bandwidth), estimate,
                    bandwidth_estimate, tuple(sources), note)


GPUS: dict[str, AppleGpu] = {g.chip: g for g in (
    _gpu("M1", (7, 8), (2.29, 2.62), (68.25, 68.25), False, ("guide", "turner", "apple-m1-pro-max"),
         "Apple: 2.6 TFLOPS (8-core); bandwidth from the 128-bit LPDDR4X-4266 bus (third-party)",
         bandwidth_estimate=True),
    _gpu("M1 Pro", (14, 16), (4.64, 5.31), (200, 200), False,
         ("guide", "turner", "apple-m1-tflops", "apple-m1-pro-max"), "Apple: 5.2 TFLOPS (16-core)"),
    _gpu("M1 Max", (24, 32), (7.96, 10.62), (400, 400), False,
         ("guide", "turner", "apple-m1-tflops", "apple-m1-pro-max"), "Apple: 10.4 TFLOPS (32-core)"),
    _gpu("M1 Ultra", (48, 64), (15.92, 21.23), (800, 800), False, ("guide", "turner", "m1-ultra")),
    _gpu("M2", (8, 10), (2.86, 3.58), (100, 100), False, ("guide", "turner", "m2", "ars-m4"),
         "Apple: 3.6 TFLOPS (10-core)"),
    _gpu("M2 Pro", (16, 19), (5.73, 6.80), (200, 200), False, ("guide", "turner", "m2-family"),
         "cores x 256 FLOP/clock x 1.398 GHz (the M2's GPU clock)"),
    _gpu("M2 Max", (30, 38), (10.74, 13.60), (400, 400), False, ("guide", "turner", "m2-family"),
         "cores x 256 FLOP/clock x 1.398 GHz"),
    _gpu("M2 Ultra", (60, 76), (21.47, 27.20), (800, 800), False, ("guide", "turner", "m2-family"),
         "cores x 256 FLOP/clock x 1.398 GHz"),
    _gpu("M3", (8, 10), (2.83, 3.58), (100, 100), True, ("guide", "hmc-tech", "ars-m4", "m3-family"),
         "GPU clock about 1.38-1.40 GHz (third-party)"),
    _gpu("M3 Pro", (14, 18), (4.95, 6.44), (150, 150), True, ("guide", "hmc-tech", "m3-pro")),
    _gpu("M3 Max", (30, 40), (10.60, 14.32), (300, 400), True,
         ("guide", "hmc-tech", "m4-max", "apple-specs-unstored"),
         "400 GB/s for the 40-core GPU; 300 GB/s for the 30-core one"),
    _gpu("M3 Ultra", (60, 80), (21.20, 28.63), (819, 819), True, ("guide", "hmc-tech", "m3-ultra"),
         "two M3 Max dies; FP32 scaled from the M3 Max estimate"),
    _gpu("M4", (8, 10), (3.01, 4.25), (120, 120), True, ("guide", "hmc-tech", "ars-m4", "m4-pro"),
         "estimates of the GPU clock differ (1.47 GHz at hmc-tech, about 1.66 GHz elsewhere): the "
         "range spans both"),
    _gpu("M4 Pro", (16, 20), (6.02, 8.50), (273, 273), True, ("guide", "hmc-tech", "m4-pro"),
         "estimates of the GPU clock differ (1.47-1.66 GHz)"),
    _gpu("M4 Max", (32, 40), (13.74, 17.18), (410, 546), True,
         ("guide", "hmc-tech", "m4-max", "apple-specs-unstored"),
         "546 GB/s for the 40-core GPU, 410 GB/s for the 32-core one; clock 1.678 GHz (hmc-tech)"),
    _gpu("M5", (8, 10), (3.23, 4.45), (153, 153), True, ("apple-m5", "hmc-tech-m5", "m5-roofline"),
         "8-core at 1.578 GHz, 10-core at 1.74 GHz (hmc-tech); measured: 3.76 TFLOPS on a fanless 10-core "
         "at 1.578 GHz; Apple's 'over 4x for AI' counts the Neural Accelerators, not FP32"),
    _gpu("M5 Pro", (20,), (8.08, 8.91), (307, 307), True, ("apple-m5-pro-max", "ars-m5-pro-max", "hmc-tech-m5"),
         "one GPU configuration named (a 20-core die); FP32 = 20 x 256 FLOP/clock x the M5's 1.578-1.74 GHz"),
    _gpu("M5 Max", (40,), (16.16, 17.82), (614, 614), True, ("apple-m5-pro-max", "ars-m5-pro-max", "hmc-tech-m5"),
         "one GPU configuration named (a 40-core die); FP32 = 40 x 256 FLOP/clock x the M5's 1.578-1.74 GHz"),
)}

_BRAND = re.compile(r"\bM([1-9])(?:\s+(Pro|Max|Ultra))?\b", re.IGNORECASE)


def chip_name(brand: str | None) -> str | None:
    """"Apple M2 Pro" -> "M2 Pro"; None for a brand that is not an Apple M-series chip."""
    if not brand or "apple" not in brand.lower():
        return None
    match = _BRAND.search(brand)
    if not match:
        return None
    tier = match.group(2)
    return f"M{match.group(1)}" + (f" {tier.capitalize()}" if tier else "")


def lookup(brand: str | None) -> AppleGpu | None:
    """The GPU of the chip named by a CPU brand string such as "Apple M2 Pro" (M1-M5 families),
    or None when the brand is not one of them."""
    name = chip_name(brand)
    return GPUS.get(name) if name else None
