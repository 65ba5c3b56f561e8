"""The overview paper's figure: scores with their 95% confidence intervals as a dot-and-whisker chart.

One panel per task and data set, stacked; one row per system in the order of its table (the first row of
the table at the top): a dot at the score, a whisker across its interval (entries without per-question
values have no whisker). Teams are filled dots, baselines hollow squares; per-cent measures (accuracy, EM)
are drawn in per cent. Panels of the same measure share one x-range. A panel's reference levels are dashed
lines, as its task gives them (`references`: chance for MCQA, and for qac-2/qac-3's AFM the score of
answering nothing where the gold is at hand).

Sized for a paper: one column (3.3 in, --plot-width column) or a page (7 in, --plot-width page), 7-8 pt text,
the height from the number of entries. Labels and titles are fitted to a width budget (wrapped at spaces,
a word too long shortened in its middle with an ellipsis) so that they never squeeze the panels and nothing
is cut. Written with matplotlib's object API (no pyplot state, no display needed) to .png (300 dpi), .pdf
(TrueType fonts, as ACL's checks want) or .svg (text as paths; each panel's dots in a group `teams-N` or
`baselines-N`), with the date and software stamps left out (and SVG's ids seeded) so that the same input
gives the same file."""
from __future__ import annotations

import math
import os
import sys
from collections import namedtuple
from collections.abc import Callable, Iterable, Sequence, Sized
from contextlib import AbstractContextManager
from typing import TYPE_CHECKING, Any, cast

from .. import tasks
from ..core.errors import UserError
from ..core.fileio import atomic_write
from ..core.hints import requires
from .render import is_percent

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

FORMATS = (".png", ".pdf", ".svg")
WIDTHS = {"column": 3.3, "page": 7.0}  # inches: an ACL/LNCS column, a page (figure*)
Point = namedtuple("Point", "label value low high kind")  # kind: team or baseline; low/high None: no interval
# references: [(label, value)] drawn as dashed lines (values as fractions, as the points' values)
Panel = namedtuple("Panel", "title metric points references", defaults=((),))
STYLE: dict[str, dict[str, Any]] = {"team": {"marker": "o", "color": "#1f4e79", "markerfacecolor": "#1f4e79"},
         "baseline": {"marker": "s", "color": "#b34700", "markerfacecolor": "white"}}
KINDS = {"team": "teams", "baseline": "baselines"}
FONT, TITLE_FONT = 7, 7.5  # points
PT = 1 / 72  # inches
PAD = 0.04  # inches around the figure
LABELS = 0.36  # the most of a stack's width its y labels may take (at most 2 in)
GAP, COLUMN_GAP = 0.06, 0.25  # inches between panels, between the two stacks of a page
ROW, ROW_PAD = 0.15, 0.05  # inches: the least height of an entry's row, the room above and below the rows
LABEL_LINES, TITLE_LINES = 2, 2
Measure = Callable[[str], float]  # text -> its width in inches
XRange = tuple[float, float, list[float]]  # drawn units: low, high, the ticks


def check_path(path: str) -> None:
    """Fail before any work when PATH cannot take a figure, or the plot extra (matplotlib) is not installed."""
    if os.path.splitext(path)[1].lower() not in FORMATS:
        raise UserError(f"{path}: the figure is written as {', '.join(FORMATS[:-1])} or {FORMATS[-1]}; "
                        "name the file so")
    style()  # imports matplotlib: without the plot extra, its one-line error


def check_width(width: str) -> float:
    if width not in WIDTHS:
        raise UserError(f"--plot-width {width}: one of {', '.join(WIDTHS)}")
    return WIDTHS[width]


def references(task_id: str, measure: str, gold_paths: Sequence[str] = ()) -> list[tuple[str, float]]:
    """The reference levels of a panel of MEASURE, [(label, value)] as fractions: the task's (Task.references:
    chance for MCQA, answering nothing for qac-2/3's AFM) when MEASURE is its main measure, over the gold
    file when GOLD_PATHS names one that can be read; none for a task this version does not know."""
    try:
        task = tasks.get(task_id)
    except UserError:
        return []
    if measure.split("[", 1)[0] != task.main_measure:  # accuracy[en]: accuracy
        return []
    gold = None
    if len(gold_paths) == 1:
        try:
            gold = task.read_gold(gold_paths[0])
        except (UserError, OSError):
            pass
    return [(r.label, r.value) for r in task.references(gold)]


def entry_label(name: str, rank: int | None, kind: str) -> str:
    """A leaderboard entry's label: a team as `RANK. NAME`, a baseline by its name less the `baseline ` its
    table row carries (its hollow square says so): the run's label (rows.labels) when the leaderboard names
    its baselines `baseline LABEL`."""
    if kind == "baseline" and name.startswith("baseline "):
        return name[len("baseline "):]
    return name if rank is None else f"{rank}. {name}"


def style() -> AbstractContextManager[None]:
    """Matplotlib's defaults (not the user's matplotlibrc: the same input gives the same file), with TrueType
    fonts in PDF and SVG ids from a fixed salt."""
    mpl_style = requires("plot", "matplotlib.style")  # the plot extra; else one line naming it
    return mpl_style.context(["default", {"pdf.fonttype": 42, "ps.fonttype": 42,
                                          "svg.hashsalt": "qa_baseline"}])


def middle(text: str, width: float, measure: Measure) -> str:
    """TEXT, shortened in its middle with an ellipsis until it is at most WIDTH wide (MEASURE: text -> inches);
    a `key=` before the value stays whole where it can."""
    if measure(text) <= width:
        return text
    low, high = 1, len(text) - 1  # the most characters kept that fit
    while low < high:
        k = (low + high + 1) // 2
        if measure(cut(text, k)) <= width:
            low = k
        else:
            high = k - 1
    return cut(text, low)


def cut(text: str, keep: int) -> str:
    """TEXT with KEEP of its characters: the head (at least up to `key=` and two more where KEEP allows),
    an ellipsis, the tail (a file name's extension)."""
    key = text.find("=") + 3 if "=" in text[:-1] else 0
    head = max(keep // 2, min(key, keep - 4))
    return text[:head] + "\u2026" + text[len(text) - (keep - head):]


def wrap(words: Iterable[str], width: float, measure: Measure) -> list[str]:
    out: list[str] = []
    for word in words:
        if out and measure(f"{out[-1]} {word}") <= width:
            out[-1] += f" {word}"
        else:
            out.append(word)
    return out


def fit(text: str, width: float, measure: Measure, lines: int) -> str:
    """TEXT in at most LINES lines, each at most WIDTH wide: wrapped at spaces (a word of up to 3 characters,
    such as a rank `1.`, stays with the next one); while it needs more lines, its widest word (a long file
    name) is shortened in its middle; what still does not fit is shortened so."""
    words: list[str] = []
    for word in text.split(" "):
        if words and len(words[-1]) <= 3:
            words[-1] += f" {word}"
        elif word:
            words.append(word)
    if not words:
        return text
    words = [middle(w, width, measure) for w in words]
    out = wrap(words, width, measure)
    while len(out) > lines:
        widest = max(range(len(words)), key=lambda i: measure(words[i]))
        shorter = middle(words[widest], 0.85 * measure(words[widest]), measure)
        if measure(words[widest]) < width / 4 or shorter == words[widest]:
            break
        words[widest] = shorter
        out = wrap(words, width, measure)
    out = out[:lines - 1] + [" ".join(out[lines - 1:])] if len(out) > lines else out
    return "\n".join(middle(line, width, measure) for line in out)


def xranges(panels: Sequence[Panel]) -> dict[str, XRange]:
    """{metric: (low, high, ticks)} over every panel of the metric (drawn units: per cent or fraction): the
    points, their intervals and the reference lines, widened to a multiple of the tick step (a tenth of the
    scale or more: at most 5 steps), within 0 and the whole scale where the values are."""
    out = {}
    for metric in dict.fromkeys(p.metric for p in panels):
        full = 100 if is_percent(metric) else 1
        values = [full * v for p in panels if p.metric == metric
                  for v in [*(x for pt in p.points for x in (pt.value, pt.low, pt.high) if x is not None),
                            *(value for _, value in p.references)]]
        tenths = math.floor(round(10 * min(values) / full, 6)), math.ceil(round(10 * max(values) / full, 6))
        span = max(tenths[1] - tenths[0], 1)
        every = next((n for n in (1, 2, 2.5, 5, 10) if span / n <= 5), math.ceil(span / 5))
        low = math.floor(round(tenths[0] / every, 6)) * every
        high = max(math.ceil(round(tenths[1] / every, 6)) * every, low + every)
        if min(values) >= 0 and max(values) <= full:
            low, high = max(low, 0), min(high, 10)
            low = min(low, high - every)
        ticks = [round(full * (low + i * every) / 10, 6) for i in range(round((high - low) / every) + 1)]
        out[metric] = (full * low / 10, full * high / 10, ticks)
    return out


def figure(panels: Iterable[Panel], width: str = "column") -> Figure:
    """A matplotlib Figure of PANELS (Panel(title, metric, [Point], references)) WIDTH wide (column: 3.3 in,
    page: 7 in); empty panels are left out."""
    with style():
        return _figure(panels, width)


def _figure(panels, width):
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure
    from matplotlib.font_manager import FontProperties
    W = check_width(width)
    panels = [p for p in panels if p.points]
    if not panels:
        raise UserError("nothing to plot: no scored entries")
    fig = Figure(figsize=(W, 1))
    FigureCanvasAgg(fig)
    renderer = fig.canvas.get_renderer()

    def measure(size, weight="normal"):
        prop = FontProperties(size=size, weight=weight)
        return lambda text: max(renderer.get_text_width_height_descent(line, prop, ismath=False)[0]
                                for line in text.split("\n")) / fig.dpi

    columns = 2 if width == "page" and len(panels) > 1 else 1  # a page: two stacks of panels side by side
    column_width = (W - 2 * PAD - COLUMN_GAP * (columns - 1)) / columns
    labels = [[fit(pt.label, min(LABELS * column_width, 2.0), measure(FONT), LABEL_LINES) for pt in p.points]
              for p in panels]
    titles = [fit(p.title, column_width, measure(TITLE_FONT, "bold"), TITLE_LINES) for p in panels]
    line = 1.2 * FONT * PT
    blocks = []  # inches, top down: title, reference labels, the rows, the x axis (ticks, their labels, the label)
    for p, mine, title in zip(panels, labels, titles):
        blocks.append((1.2 * TITLE_FONT * PT * (title.count("\n") + 1) + 0.03, line + 0.01 if p.references else 0,
                       sum(map(row_height, mine)) + 2 * ROW_PAD, 4 * PT + 2 * line + 0.02))
    heights = [sum(b) for b in blocks]
    split = len(panels) if columns == 1 else min(
        range(1, len(panels)), key=lambda k: (max(sum(heights[:k]) + GAP * (k - 1),
                                                  sum(heights[k:]) + GAP * (len(panels) - k - 1)), k))
    stacks = [range(split), range(split, len(panels))][:columns]
    kinds = sorted({pt.kind for p in panels for pt in p.points},  # teams first
                   key=lambda k: (list(KINDS).index(k) if k in KINDS else len(KINDS), k))
    legend = line + 0.06 if len(kinds) > 1 else 0
    H = 2 * PAD + legend + max(sum(heights[i] for i in stack) + GAP * (len(stack) - 1) for stack in stacks)
    fig.set_size_inches(W, H)
    ranges = xranges(panels)
    for c, stack in enumerate(stacks):
        x0 = PAD + c * (column_width + COLUMN_GAP)
        left = x0 + max(measure(FONT)(x) for i in stack for x in labels[i]) + 4 * PT  # 4 pt: the tick label pad
        right = x0 + column_width - 0.1  # room for half the last x tick label
        top = H - PAD
        for i in stack:
            p, (title_h, ref_h, axes_h, axis_h) = panels[i], blocks[i]
            fig.text(x0 / W, top / H, titles[i], fontsize=TITLE_FONT, weight="bold", ha="left", va="top",
                     parse_math=False)
            top -= title_h + ref_h + axes_h
            draw(fig.add_axes((left / W, top / H, (right - left) / W, axes_h / H)), p, labels[i], kinds,
                 ranges[p.metric], i)
            top -= axis_h + GAP
    if legend:  # below the panels, where it hides no whisker
        handles = {h.get_label(): h for ax in fig.axes for h in ax.get_legend_handles_labels()[0]}
        handles = {KINDS.get(k, k): handles[KINDS.get(k, k)] for k in kinds}  # teams first
        fig.legend(list(handles.values()), list(handles), loc="lower center", bbox_to_anchor=(0.5, PAD / H),
                   ncols=len(handles), fontsize=FONT, frameon=False, handlelength=1.2, handletextpad=0.4,
                   columnspacing=1.5, borderpad=0, borderaxespad=0)
    return fig


def row_height(label: str) -> float:
    """The height of an entry's row (inches): its label's lines, at least ROW."""
    return max(ROW, (label.count("\n") + 1) * FONT * PT * 1.2 + 0.04)


def draw(ax: Axes, panel: Panel, labels: Sequence[str], kinds: Iterable[str], xrange: XRange, number: int = 0) -> None:
    """One panel into AX: its points (the first at the top; the dots of a kind named `teams-NUMBER` or
    `baselines-NUMBER`, the group SVG writes them in), its reference lines, its axes."""
    scale = 100 if is_percent(panel.metric) else 1
    heights = list(map(row_height, labels))  # y in inches, up from the bottom row's lower edge
    ys = [sum(heights[i + 1:]) + h / 2 for i, h in enumerate(heights)]
    for kind in kinds:
        mine = [(ys[i], pt) for i, pt in enumerate(panel.points) if pt.kind == kind]
        if not mine:
            continue
        err = [[scale * (pt.value - pt.low) if pt.low is not None else 0 for _, pt in mine],
               [scale * (pt.high - pt.value) if pt.high is not None else 0 for _, pt in mine]]
        dots = ax.errorbar([scale * pt.value for _, pt in mine], [y for y, _ in mine], xerr=err, linestyle="none",
                           markersize=4, markeredgewidth=0.9, elinewidth=0.9, capsize=0, label=KINDS.get(kind, kind),
                           zorder=3, **STYLE.get(kind, STYLE["baseline"]))
        dots.lines[0].set_gid(f"{KINDS.get(kind, kind)}-{number}")
    low, high, ticks = xrange
    margin = 0.03 * (high - low)
    ax.set_xlim(low - margin, high + margin)
    step = f"{round(ticks[1] - ticks[0], 6):g}" if len(ticks) > 1 else "1"
    decimals = len(step.split(".")[1]) if "." in step else 0  # 0.8, 0.9, 1.0 (not 1)
    ax.set_xticks(ticks, [f"{t:.{decimals}f}" for t in ticks], fontsize=FONT)
    ax.set_yticks(ys, labels, fontsize=FONT, parse_math=False, linespacing=1.0)
    ax.set_ylim(-ROW_PAD, sum(heights) + ROW_PAD)
    ax.tick_params(axis="y", length=0, pad=4)
    ax.tick_params(axis="x", length=2.5, width=0.6, pad=1.5)
    ax.set_xlabel(f"{panel.metric} (%)" if scale == 100 else panel.metric, fontsize=FONT, labelpad=1.5,
                  parse_math=False)
    ax.grid(axis="x", linewidth=0.4, alpha=0.5)
    ax.spines[["top", "right"]].set_visible(False)
    for spine in ax.spines.values():
        spine.set_linewidth(0.6)
    for label, value in panel.references:
        x = scale * value
        ax.axvline(x, color="0.3", linestyle=(0, (3, 2)), linewidth=0.8, zorder=2)
        where = (x - low + margin) / (high - low + 2 * margin)
        ha = "left" if where < 0.15 else "right" if where > 0.85 else "center"
        ax.annotate(label, (x, 1), xycoords=("data", "axes fraction"), xytext=(0, 1), textcoords="offset points",
                    ha=ha, va="bottom", fontsize=FONT, color="0.3", parse_math=False)


def save(panels: Iterable[Panel], path: str, width: str = "column", say: bool = True) -> Figure:
    """Draw PANELS into PATH (.png, .pdf or .svg, written atomically) WIDTH wide (column or page); returns the
    Figure. SAY: print what was drawn on stderr."""
    check_path(path)
    ext = os.path.splitext(path)[1].lower()
    metadata = {".pdf": {"CreationDate": None, "Producer": None, "Creator": None},
                ".svg": {"Date": None, "Creator": None}}.get(ext, {"Software": None})
    with style():
        fig = _figure(panels, width)
        with atomic_write(path, "wb") as f:
            fig.savefig(f, format=ext[1:], dpi=300, metadata=metadata)
    entries, n = count_points(fig), len(fig.axes)
    if say:
        print(f"{path}: {entries} entr{'ies' if entries != 1 else 'y'} in {n} panel{'s' * (n != 1)}, "
              f"{WIDTHS[width]:g} x {fig.get_size_inches()[1]:.1f} in", file=sys.stderr)
    return fig


def count_points(fig: Figure) -> int:
    """The dots drawn in a Figure (what the tests check)."""
    return sum(len(cast(Sized, line.get_xdata())) for ax in fig.axes for line in ax.lines
               if line.get_marker() not in ("", "None", None))
