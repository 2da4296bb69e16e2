"""The perturbation-table generator (kanon_tools.ptable, `python -m kanon_tools ptable`), no warehouse.

Each property of the format is checked on the tables of several parameter sets, from the rows
themselves (not from what the generator says of them): the intervals tile [0, 2^32), the mean is
0 in integers, the variance is V wherever the allowed values can have it, |v| <= D, nothing in
1..js, zero stays zero; the same parameters give the same bytes, and the committed fixture is
what the command writes. The solver is compared with scipy's SLSQP on the maximum-entropy problem
itself and with linear programs for the rows that cannot have V; the intervals are compared with
the solved probabilities, exactly and by a chi-square test of keys drawn at random through
kanon_tools.noise (the engine's Python twin).
"""

from __future__ import annotations

import itertools
import math
from collections import Counter
from pathlib import Path

import numpy as np
import numpy.typing as npt
import pytest
from kanon_tools.cli import main
from kanon_tools.noise import Ptable as Lookup
from kanon_tools.noise import PtableRow
from kanon_tools.ptable import (
    KEY_SPACE,
    PtableError,
    PtableParams,
    allowed_perturbations,
    build_ptable,
    check_ptable,
    key_widths,
    read_csv,
    summarize,
)
from scipy import optimize, stats
from support import INTEGRATION

# (D, V, js, pstay): k = 3 and 5, no js, a pstay, a variance near D^2, rows that cannot have V
PARAMS = [
    PtableParams(3, 2.5, 2),
    PtableParams(5, 3.0, 4),
    PtableParams(4, 2.0, 0),
    PtableParams(5, 3.0, 2, pstay=0.4),
    PtableParams(3, 8.5, 1),
    PtableParams(2, 1.0, 2),
    PtableParams(8, 10.0, 6, imax=30),
]
IDS = [f"D{p.max_perturbation}-V{p.variance:g}-js{p.js}" + (f"-pstay{p.pstay}" if p.pstay else "") for p in PARAMS]


def by_count(rows: tuple[PtableRow, ...]) -> dict[int, list[PtableRow]]:
    found: dict[int, list[PtableRow]] = {}
    for r in rows:
        found.setdefault(r.i, []).append(r)
    return found


@pytest.mark.parametrize("params", PARAMS, ids=IDS)
def test_each_count_tiles_the_key_space_in_the_order_of_j(params: PtableParams) -> None:
    counts = by_count(build_ptable(params).rows)
    assert sorted(counts) == list(range(params.last_count + 1))
    for i, rows in counts.items():
        assert [r.j for r in rows] == sorted({r.j for r in rows}), i
        assert rows[0].key_from == 0 and rows[-1].key_to == KEY_SPACE, i
        assert all(a.key_to == b.key_from for a, b in itertools.pairwise(rows)), i
        assert all(r.key_to > r.key_from for r in rows), i


@pytest.mark.parametrize("params", PARAMS, ids=IDS)
def test_the_mean_perturbation_is_zero_in_integers(params: PtableParams) -> None:
    """sum(width * v) = 0 exactly, except where no whole widths can: a count with two values whose
    gap does not divide 2^32 (D = js: the count 1 goes to 0 or js + 1), left as near 0 as can be."""
    for i, rows in by_count(build_ptable(params).rows).items():
        moment = sum((r.key_to - r.key_from) * r.v for r in rows)
        values = allowed_perturbations(i, params.max_perturbation, params.js)
        if len(values) == 2 and KEY_SPACE * values[0] % (values[1] - values[0]):
            assert 0 < abs(moment) <= (values[1] - values[0]) // 2, (i, moment)
        else:
            assert moment == 0, (i, moment)


def test_only_two_valued_counts_keep_a_bias() -> None:
    """The premise of the exception above: D = js has one such count (1 -> 0 or 3), and it is said."""
    table = build_ptable(PtableParams(2, 1.0, 2))
    biased = {i: m.first for i, m in summarize(table.rows).moments.items() if m.first}
    assert biased == {1: -1}
    assert check_ptable(table.rows, max_perturbation=2, js=2) == ["i=1: sum(width * v) is -1, not 0"]


@pytest.mark.parametrize("params", PARAMS, ids=IDS)
def test_variance_is_v_wherever_the_allowed_values_allow_it(params: PtableParams) -> None:
    """From imax's row (every value -D..D allowed) down, and at every count the solver says met,
    the intervals' variance is V within what whole widths move (a few units of 2^-32 times D^2)."""
    table = build_ptable(params)
    moments = summarize(table.rows).moments
    slack = 100 * params.max_perturbation**2 / KEY_SPACE
    for solution in table.solutions[1:]:
        if solution.i >= params.smallest_imax:
            assert solution.variance_met, solution.i
        if solution.variance_met:
            assert abs(moments[solution.i].variance - params.variance) <= slack, solution.i


@pytest.mark.parametrize("params", PARAMS, ids=IDS)
def test_no_perturbation_beyond_d_nor_into_one_to_js(params: PtableParams) -> None:
    rows = build_ptable(params).rows
    imax = max(r.i for r in rows)
    assert all(abs(r.v) <= params.max_perturbation and r.v == r.j - r.i for r in rows)
    assert not [r for r in rows if 1 <= r.j <= params.js]
    # a count above imax is published as n + v from imax's row: none of them may reach 1..js
    assert min(r.j for r in rows if r.i == imax) > params.js
    # what check_ptable finds beyond the bias of a two-valued count (test_only_two_valued_counts_keep_a_bias)
    problems = check_ptable(rows, max_perturbation=params.max_perturbation, js=params.js)
    assert [p for p in problems if "sum(width * v)" not in p] == []


@pytest.mark.parametrize("params", PARAMS, ids=IDS)
def test_zero_has_one_row_and_stays_zero(params: PtableParams) -> None:
    rows = [r for r in build_ptable(params).rows if r.i == 0]
    assert rows == [PtableRow(0, 0, 0, 0, KEY_SPACE)]


def test_imax_defaults_to_the_first_count_with_every_value() -> None:
    """D + js + 1: its row, and every later one, is the same distribution shifted."""
    table = build_ptable(PtableParams(3, 2.5, 2, imax=12))
    counts = by_count(table.rows)
    first = [(r.v, r.key_from, r.key_to) for r in counts[6]]
    assert all([(r.v, r.key_from, r.key_to) for r in counts[i]] == first for i in range(6, 13))
    assert [(r.v, r.key_from, r.key_to) for r in counts[5]] != first
    assert max(counts) == 12 and build_ptable(PtableParams(3, 2.5, 2)).params.last_count == 6


def test_same_parameters_same_bytes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    params = PtableParams(5, 3.0, 2, pstay=0.4)
    assert build_ptable(params).csv() == build_ptable(params).csv()
    args = ["ptable", "-D", "5", "-V", "3", "--js", "2", "--pstay", "0.4"]
    assert main([*args, "-o", str(tmp_path / "a.csv")]) == 0
    assert main([*args, "-o", str(tmp_path / "b.csv")]) == 0
    assert (tmp_path / "a.csv").read_bytes() == (tmp_path / "b.csv").read_bytes() == build_ptable(params).csv().encode()
    capsys.readouterr()


@pytest.mark.parametrize(("seed", "args"), [
    ("ptable_good", ["-D", "3", "-V", "2.5", "--js", "2"]),
    ("ptable_unmet", ["-D", "5", "-V", "3", "--js", "4"]),
])
def test_the_committed_fixtures_are_what_the_command_writes(seed: str, args: list[str], tmp_path: Path,
                                                            capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / f"{seed}.csv"
    assert main(["ptable", *args, "-o", str(out)]) == 0
    capsys.readouterr()
    assert out.read_bytes() == (INTEGRATION / "seeds" / "ptable" / f"{seed}.csv").read_bytes()


def test_p_is_the_exact_share_of_the_interval() -> None:
    text = build_ptable(PtableParams(3, 2.5, 2)).csv()
    header, *lines = text.splitlines()
    assert header == "i,j,v,p,key_from,key_to"
    for line in lines:
        _, _, _, p, key_from, key_to = line.split(",")
        assert float(p) == (int(key_to) - int(key_from)) / KEY_SPACE  # exactly: a binary fraction
    assert read_csv(text) == list(build_ptable(PtableParams(3, 2.5, 2)).rows)


@pytest.mark.parametrize(("args", "message"), [
    (["-D", "0", "-V", "1", "--js", "0"], "argument --max-perturbation/-D: must be a whole number from 1 to 1000"),
    (["-D", "2.5", "-V", "1", "--js", "0"], "must be a whole number from 1 to 1000, got '2.5'"),
    (["-D", "3", "-V", "-1", "--js", "0"], "argument --variance/-V: must be a variance above 0"),
    (["-D", "3", "-V", "nan", "--js", "0"], "argument --variance/-V: must be a variance above 0"),
    (["-D", "3", "-V", "1", "--js", "-1"], "argument --js: must be a whole number from 0 to 1000"),
    (["-D", "3", "-V", "1", "--js", "1", "--pstay", "1.5"], "argument --pstay: must be a probability"),
    (["-D", "3", "-V", "1", "--js", "1", "--imax", "1"], "argument --imax: must be a whole number from 2"),
])
def test_a_value_out_of_range_is_a_usage_error(args: list[str], message: str, tmp_path: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "t.csv"
    with pytest.raises(SystemExit) as exited:
        main(["ptable", *args, "-o", str(out)])
    assert exited.value.code == 2
    assert message in capsys.readouterr().err
    assert not out.exists()


@pytest.mark.parametrize(("args", "message"), [
    (["-D", "3", "-V", "0", "--js", "0"], "--variance must be above 0 and at most D^2 = 9"),
    (["-D", "3", "-V", "9.5", "--js", "0"], "--variance must be above 0 and at most D^2 = 9"),
    (["-D", "3", "-V", "0.2", "--js", "0", "--pstay", "0.5"],
     "--variance must be from 1 - pstay = 0.5 to (1 - pstay) * D^2 = 4.5 with --pstay 0.5, got 0.2"),
    (["-D", "3", "-V", "5", "--js", "0", "--pstay", "0.5"], "to (1 - pstay) * D^2 = 4.5"),
    (["-D", "3", "-V", "1", "--js", "1", "--pstay", "0"], "--pstay must be a probability strictly between 0 and 1"),
    (["-D", "3", "-V", "1", "--js", "1", "--pstay", "1"], "--pstay must be a probability strictly between 0 and 1"),
    (["-D", "2", "-V", "1", "--js", "4"], "--max-perturbation (D = 2) must be at least --js (4)"),
    (["-D", "3", "-V", "1", "--js", "2", "--imax", "5"], "--imax must be a whole number from D + js + 1 = 6"),
])
def test_parameters_no_table_can_honour_are_refused_naming_the_argument(
        args: list[str], message: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "t.csv"
    assert main(["ptable", *args, "-o", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("ptable: ") and message in err and err.count("\n") == 1, err
    assert not out.exists()


def test_params_validate_without_the_command() -> None:
    with pytest.raises(PtableError, match="must be at least --js"):
        build_ptable(PtableParams(1, 0.5, 3))
    with pytest.raises(PtableError, match="--max-perturbation"):
        PtableParams(True, 0.5, 0).validate()  # a bool is not a whole number


def test_counts_that_cannot_have_v_are_printed_with_their_variance(tmp_path: Path,
                                                                  capsys: pytest.CaptureFixture[str]) -> None:
    """k = 5 (js = 4), D = 5, V = 3: the count 1 can only go to 0, 5 or 6, so its least variance
    with mean 0 is 1 * 4 (two values, -1 and +4); 2 -> 0, 5..7: 2 * 3; 3: 3 * 2; 4: 4 * 1."""
    assert main(["ptable", "-D", "5", "-V", "3", "--js", "4", "-o", str(tmp_path / "t.csv")]) == 0
    out = capsys.readouterr().out
    assert "4 counts cannot have variance 3" in out
    for i, variance in ((1, 4), (2, 6), (3, 6), (4, 4)):
        assert f"  i={i}: variance {variance} (v in " in out
    assert "i=5:" not in out
    table = build_ptable(PtableParams(5, 3.0, 4))
    assert [s.i for s in table.solutions if not s.variance_met] == [1, 2, 3, 4]
    moments = summarize(table.rows).moments
    assert [round(moments[i].variance, 6) for i in (1, 2, 3, 4)] == [4, 6, 6, 4]


def test_counts_forced_to_stay_and_pstay_not_kept_are_printed(tmp_path: Path,
                                                              capsys: pytest.CaptureFixture[str]) -> None:
    """D = js = 2, pstay 0.5: 3 can reach only 3..5, so mean 0 means staying (variance 0); 1 and 2
    cannot stay at all (1..js); and 1, going to 0 or 3, cannot have a mean of exactly 0."""
    assert main(["ptable", "-D", "2", "-V", "1", "--js", "2", "--pstay", "0.5", "-o", str(tmp_path / "t.csv")]) == 0
    out = capsys.readouterr().out
    assert "  i=3: variance 0 (v in [0, 1, 2])" in out
    assert "p(j = i) is not pstay at 2 counts, 1, 2: j = i is in 1..js" in out
    assert "p(j = i) is not pstay at 1 count, 3: only v = 0 gives them mean 0" in out
    assert "  i=1: mean perturbation -2.33e-10 (sum(width * v) = -1)" in out


def test_a_clean_table_says_its_means_are_exact(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["ptable", "-D", "3", "-V", "2.5", "--js", "2", "-o", str(tmp_path / "t.csv")]) == 0
    out = capsys.readouterr().out
    assert "31 rows, counts 0..6 (6 stands for every larger count); D 3, V 2.5, js 2" in out
    assert "every count's mean perturbation is 0 exactly" in out and "cannot have" not in out


@pytest.mark.parametrize("params", PARAMS, ids=IDS)
def test_intervals_are_the_solved_probabilities_within_rounding(params: PtableParams) -> None:
    """Each width is its probability * 2^32 within 1 (largest remainders) plus the units the mean's
    balancing moved (fewer than sum |v|)."""
    table = build_ptable(params)
    for solution in table.solutions:
        widths = dict.fromkeys(solution.values, 0)
        for r in table.rows:
            if r.i == solution.i:
                widths[r.v] = r.key_to - r.key_from
        bound = 1 + sum(abs(v) for v in solution.values)
        for v, p in zip(solution.values, solution.probabilities, strict=True):
            assert abs(widths[v] - p * KEY_SPACE) <= bound, (solution.i, v)


@pytest.mark.parametrize("params", [PARAMS[0], PARAMS[3]], ids=[IDS[0], IDS[3]])
def test_random_keys_publish_the_solved_probabilities(params: PtableParams) -> None:
    """Goodness of fit: 200,000 uniform cell keys per count, looked up as the engine's Python twin
    does (kanon_tools.noise.Ptable), against the solved probabilities (chi-square, p > 0.001)."""
    table = build_ptable(params)
    lookup = Lookup(table.rows)
    keys = np.random.default_rng(20260101).integers(0, KEY_SPACE, size=200_000)
    for solution in table.solutions[1:]:
        seen = Counter(lookup.perturbation(solution.i, int(key)) for key in keys)
        kept = [(v, p) for v, p in zip(solution.values, solution.probabilities, strict=True) if p > 1e-4]
        observed = [seen[v] for v, _ in kept]
        expected = np.array([p for _, p in kept]) / sum(p for _, p in kept) * sum(observed)
        assert sum(observed) >= len(keys) - 100  # the values left out are almost never drawn
        assert stats.chisquare(observed, expected).pvalue > 0.001, solution.i


def primal_max_entropy(values: tuple[int, ...], variance: float, pstay: float | None) -> npt.NDArray[np.float64]:
    """The maximum-entropy problem as stated, solved by SLSQP on the probabilities themselves:
    maximize -sum p log p subject to sum p = 1, sum p v = 0, sum p v^2 = V (and p(0) = pstay)."""
    v = np.asarray(values, dtype=float)
    constraints = [{"type": "eq", "fun": lambda p: p.sum() - 1}, {"type": "eq", "fun": lambda p: p @ v},
                   {"type": "eq", "fun": lambda p: p @ (v * v) - variance}]
    if pstay is not None:
        constraints.append({"type": "eq", "fun": lambda p: p[values.index(0)] - pstay})

    def negative_entropy(p: npt.NDArray[np.float64]) -> float:
        return float(np.sum(p * np.log(np.maximum(p, 1e-300))))

    result = optimize.minimize(negative_entropy, np.full(len(v), 1 / len(v)), method="SLSQP",
                               bounds=[(1e-12, 1)] * len(v), constraints=constraints,
                               options={"ftol": 1e-14, "maxiter": 1000})
    assert result.success, result.message
    return np.asarray(result.x)


@pytest.mark.filterwarnings("ignore:Values in x were outside bounds")  # SLSQP's own steps, clipped
@pytest.mark.parametrize("params", [PtableParams(3, 2.5, 2), PtableParams(5, 3.0, 2, pstay=0.4),
                                    PtableParams(4, 2.0, 0)], ids=["D3-V2.5-js2", "D5-V3-js2-pstay0.4", "D4-V2-js0"])
def test_solved_rows_match_scipy_on_the_primal_problem(params: PtableParams) -> None:
    table = build_ptable(params)
    compared = 0
    for solution in table.solutions[1:]:
        if not (solution.variance_met and solution.pstay_kept):
            continue
        expected = primal_max_entropy(solution.values, params.variance, params.pstay)
        assert np.allclose(solution.probabilities, expected, atol=1e-6), (solution.i, solution.probabilities, expected)
        compared += 1
    assert compared >= params.last_count - params.js


def test_rows_that_cannot_have_v_get_the_nearest_variance_a_linear_program_finds() -> None:
    """Over distributions with mean 0 on a count's values, the least and largest variance are linear
    programs; a count asked for less than the least gets the least, for more the largest."""
    for params in (PtableParams(5, 3.0, 4), PtableParams(3, 8.5, 1)):
        for solution in build_ptable(params).solutions[1:]:
            v = np.asarray(solution.values, dtype=float)
            bounds = [optimize.linprog(sign * v * v, A_eq=np.stack([np.ones_like(v), v]), b_eq=[1, 0],
                                       bounds=(0, None)).fun * sign for sign in (1, -1)]
            nearest = min(max(params.variance, bounds[0]), bounds[1])
            assert math.isclose(solution.variance, nearest, abs_tol=1e-9), (solution.i, solution.variance, bounds)
            assert solution.variance_met == math.isclose(nearest, params.variance, abs_tol=1e-12)
            assert abs(float(np.dot(solution.probabilities, v))) < 1e-9


def test_balancing_reaches_zero_with_units_beyond_the_two_point_support() -> None:
    """The count 2 of D = 3, js = 2, V = 2: its least variance is two values, -2 and +1, with widths
    2^32 / 3 apart that no whole numbers hit; a unit at +2 or +3 makes the mean exactly 0."""
    values = allowed_perturbations(2, 3, 2)
    assert values == (-2, 1, 2, 3)
    widths = key_widths(values, [1 / 3, 2 / 3, 0.0, 0.0])
    assert sum(widths) == KEY_SPACE and sum(w * v for w, v in zip(widths, values, strict=True)) == 0
    assert sum(widths[2:]) <= 2


def test_check_ptable_finds_each_mutation() -> None:
    rows = list(build_ptable(PtableParams(3, 2.5, 2)).rows)
    assert check_ptable(rows, max_perturbation=3, js=2) == []

    def changed(at: tuple[int, int], **fields: int) -> list[PtableRow]:
        return [PtableRow(**{**r.__dict__, **fields}) if (r.i, r.j) == at else r for r in rows]

    shifted = changed((4, 5), key_from=3193042436 + 1000, key_to=3332264643 + 1000)
    assert check_ptable(shifted, max_perturbation=3, js=2) == ["i=4: the intervals do not tile [0, 2^32)"]
    assert "i=6: sum(width * v) is" in check_ptable(changed((6, 6), j=7, v=1), max_perturbation=3, js=2)[0]
    assert check_ptable(changed((3, 3), j=2, v=-1), max_perturbation=3, js=2)[0] == "i=3: a perturbed value in 1..2"
    assert check_ptable(changed((6, 3), j=0, v=-6), max_perturbation=6, js=2)[0] == "i=6: a perturbed value in 1..2"
    assert check_ptable(changed((0, 0), j=1, v=1), max_perturbation=3, js=0)[0] == "i=0: zero does not stay zero"
    assert check_ptable([r for r in rows if r.i != 2], max_perturbation=3, js=2)[0].startswith("the counts are not")
