"""The Apple GPU table (tfdoctor/knowledge/apple_gpus.py): every figure sourced, estimates marked as estimates,
the M5 family present, and the FP32 peaks consistent with the formula the module states
(cores x 128 ALUs x 2 FLOP x clock)."""

from __future__ import annotations

import pytest

from tfdoctor.knowledge.apple_gpus import GPUS, SOURCES, chip_name, lookup

FLOP_PER_CORE_CLOCK = 128 * 2


@pytest.mark.parametrize("brand, chip", [("Apple M5", "M5"), ("Apple M5 Pro", "M5 Pro"),
                                         ("Apple M5 Max", "M5 Max"), ("apple m5 max", "M5 Max")])
def test_m5_family_is_looked_up_by_brand_string(brand, chip):
    assert chip_name(brand) == chip
    gpu = lookup(brand)
    assert gpu is not None and gpu.chip == chip


def test_m5_figures_are_the_sourced_ones():
    """Apple: M5 10-core GPU and 153 GB/s; M5 Pro up to 20 cores and 307 GB/s; M5 Max up to 40 cores
    and 614 GB/s (sources apple-m5, apple-m5-pro-max). FP32: hmc-tech's 4.45 TFLOPS for the 10-core
    M5 and 3.23 for the 8-core one."""
    m5, pro, top = GPUS["M5"], GPUS["M5 Pro"], GPUS["M5 Max"]
    assert m5.gpu_cores == (8, 10) and m5.bandwidth_gbs == (153, 153)
    assert m5.fp32_tflops == (3.23, 4.45)
    assert pro.gpu_cores == (20,) and pro.bandwidth_gbs == (307, 307)
    assert top.gpu_cores == (40,) and top.bandwidth_gbs == (614, 614)
    assert {"apple-m5", "hmc-tech-m5", "m5-roofline"} <= set(m5.sources)
    assert "apple-m5-pro-max" in pro.sources and "apple-m5-pro-max" in top.sources


def test_m5_measurement_is_below_the_estimated_peak():
    """The one measurement (3.76 TFLOPS on a fanless 10-core M5, m5-roofline) must not exceed the
    largest configuration's estimated peak."""
    best_case, _ = GPUS["M5"].fraction_of_peak(3760.0)
    assert 0.8 < best_case <= 1.0


@pytest.mark.parametrize("family", ["M3", "M4", "M5"])
def test_families_without_apple_figures_are_marked_estimates(family):
    """GUIDE section 3: M3 and M4 figures are third-party estimates; Apple published no FP32 figure
    for the M5 family either. The text shown to users says so."""
    chips = [g for name, g in GPUS.items() if name.split()[0] == family]
    assert chips
    for gpu in chips:
        assert gpu.fp32_estimate, gpu.chip
        assert "third-party estimate" in gpu.peak_text(), gpu.chip


@pytest.mark.parametrize("family", ["M1", "M2"])
def test_families_with_public_figures_are_not_marked_estimates(family):
    for name, gpu in GPUS.items():
        if name.split()[0] == family:
            assert not gpu.fp32_estimate and "estimate" not in gpu.peak_text(), name


@pytest.mark.parametrize("name", sorted(GPUS))
def test_every_entry_is_sourced_and_consistent(name):
    gpu = GPUS[name]
    assert gpu.sources and all(src in SOURCES for src in gpu.sources)
    low, high = gpu.fp32_tflops
    assert 0 < low <= high
    assert gpu.bandwidth_gbs[0] <= gpu.bandwidth_gbs[1]
    assert list(gpu.gpu_cores) == sorted(gpu.gpu_cores)
    # implied GPU clock of the smallest and the largest configuration: a plausible Apple GPU clock
    for cores, tflops in ((gpu.gpu_cores[0], low), (gpu.gpu_cores[-1], high)):
        clock_ghz = tflops * 1e3 / (cores * FLOP_PER_CORE_CLOCK)
        assert 1.2 <= clock_ghz <= 1.8, (name, cores, tflops, clock_ghz)


def test_to_dict_expands_sources():
    doc = GPUS["M5 Pro"].to_dict()
    assert doc["chip"] == "M5 Pro" and doc["gpu_cores"] == [20] and doc["fp32_estimate"] is True
    assert all(text.startswith(("http", "Apple", "GUIDE", "Ars")) or "://" in text for text in doc["sources"])


@pytest.mark.parametrize("brand", [None, "", "Apple M9 Hyper", "Intel(R) Core(TM) i9-9880H CPU @ 2.30GHz"])
def test_unknown_brands(brand):
    assert lookup(brand) is None
