"""The demo's report directory: ``figures.json`` (every figure), ``summary.md`` (the tables)
and matplotlib plots (``recall_at_k.png``: evidence recall@k per system, overall and per
category; ``latency.png``: per-call latency distributions; ``reliability.png``: retrieve's
confidence against its hit rate, per block), plus the same tables for a terminal. The tables come
overall and per LoCoMo block (tuning, held-out), with routing accuracy and calibration error.
"""

from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")  # files only, no display (set before pyplot is imported)
import matplotlib.pyplot as plt
from rich.table import Table

from engrava_graph.demo.evaluate import NDCG_K, OVERALL

_RECALL_CUTS = (5, 10)
_TEXT_COLUMNS = ("category", "system")


@dataclass(frozen=True)
class ReportFiles:
    """Where :func:`write_report` wrote.

    Attributes:
        directory, figures, summary, recall_plot, latency_plot: the paths.
        reliability_plot: ``reliability.png`` (retrieve's confidence per block), or None when
            no block has a calibration (no ``retrieve`` results).
    """

    directory: Path
    figures: Path
    summary: Path
    recall_plot: Path
    latency_plot: Path
    reliability_plot: Path | None = None


def score_table(figures: dict[str, Any]) -> tuple[list[str], list[list[str]]]:
    """Headers and rows of the score table: one row per category and system (overall last)."""
    top_k = figures["meta"]["top_k"]
    cuts = [k for k in _RECALL_CUTS if k <= top_k]
    headers = (
        ["category", "system", "questions"]
        + [f"R@{k}" for k in cuts]
        + ["S-hit@1", f"S-NDCG@{NDCG_K}"]
    )
    scores = figures["scores"]
    categories = list(next(iter(scores.values()))) if scores else []
    rows = []
    for category in categories:
        for system, by_category in scores.items():
            s = by_category[category]
            rows.append(
                [category, system, str(s["questions"])]
                + [f"{s['recall_at_k'][k - 1]:.3f}" for k in cuts]
                + [f"{s['session_hit_at_k'][0]:.3f}", f"{s[f'session_ndcg_at_{NDCG_K}']:.3f}"]
            )
    return headers, rows


def latency_table(figures: dict[str, Any]) -> tuple[list[str], list[list[str]]]:
    """Headers and rows of the latency table (milliseconds per call)."""
    rows = [
        [system, f"{v['p50']:.1f}", f"{v['p95']:.1f}", f"{v['mean']:.1f}", str(v["n"])]
        for system, v in figures["latency_ms"].items()
    ]
    return ["system", "p50 ms", "p95 ms", "mean ms", "calls"], rows


def markdown_table(headers: list[str], rows: list[list[str]]) -> str:
    """A GitHub-flavoured Markdown table."""
    lines = ["| " + " | ".join(headers) + " |", "|" + "---|" * len(headers)]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return "\n".join(lines)


def rich_table(
    title: str, headers: list[str], rows: list[list[str]], *, grouped: bool = False
) -> Table:
    """The same table for the terminal; ``grouped``: a rule where the first column changes."""
    table = Table(title=title, title_justify="left")
    for header in headers:
        table.add_column(header, justify="left" if header in _TEXT_COLUMNS else "right")
    for i, row in enumerate(rows):
        table.add_row(*row, end_section=grouped and i + 1 < len(rows) and rows[i + 1][0] != row[0])
    return table


def summary_markdown(figures: dict[str, Any]) -> str:
    """``summary.md``: what was run, the score table and the latency table."""
    meta = figures["meta"]
    load = meta["machine"]["load_avg_1_5_15_before"]
    run = (
        f"{meta['date']}: {len(meta['conversations'])} conversations "
        f"({', '.join(meta['conversations'])}), {meta['questions']} questions, "
        f"{meta['thoughts']} thoughts; top_k {meta['top_k']}; embedder {meta['embedder']}; "
        f"{meta['machine']['cpus']} CPUs, load average {load[0]} at start; "
        f"wall time {meta['wall_seconds']} s."
    )
    legend = (
        "R@k = evidence recall at k (turn level); S-hit@1 = the first result lies in an "
        f"evidence session; S-NDCG@{NDCG_K} = session-level NDCG (see docs/benchmarks.md)."
    )
    parts = [
        "# LoCoMo retrieval (engrava-graph demo)",
        run,
        legend,
        markdown_table(*score_table(figures)),
        "Latency per call (query embedding included):",
        markdown_table(*latency_table(figures)),
        *routing_lines(figures),
    ]
    for block, block_figures in block_sections(figures):
        parts += [
            f"## {block} block",
            markdown_table(*score_table(block_figures)),
            markdown_table(*latency_table(block_figures)),
            *routing_lines(block_figures),
        ]
    return "\n\n".join(parts) + "\n"


def block_sections(figures: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    """``[(block, its figures with the run's meta)]`` for each LoCoMo block of the run
    (``tuning``, ``held-out``, ``other``; ``figures["blocks"]``), ready for the table
    functions."""
    return [
        (block, {**summary, "meta": figures["meta"]})
        for block, summary in (figures.get("blocks") or {}).items()
    ]


def _recall_plot(figures: dict[str, Any], path: Path) -> None:
    scores = figures["scores"]
    categories = list(next(iter(scores.values())))
    categories = [OVERALL] + [c for c in categories if c != OVERALL]
    cols = 3
    rows = -(-len(categories) // cols)
    fig, axes = plt.subplots(
        rows, cols, figsize=(4.2 * cols, 3.4 * rows), squeeze=False, sharey=True
    )
    ks = list(range(1, figures["meta"]["top_k"] + 1))
    for ax, category in zip(axes.flat, categories, strict=False):
        for system, by_category in scores.items():
            ax.plot(
                ks, by_category[category]["recall_at_k"], marker="o", markersize=3, label=system
            )
        n = next(iter(scores.values()))[category]["questions"]
        ax.set_title(f"{category} ({n} questions)")
        ax.set_xlabel("k")
        ax.set_xticks(ks)
        ax.set_ylim(0, 1)
        ax.grid(alpha=0.3)
    for ax in axes.flat[len(categories) :]:
        ax.axis("off")
    axes[0][0].set_ylabel("evidence recall@k")
    axes[0][0].legend(loc="lower right", fontsize="small")
    fig.suptitle("LoCoMo evidence recall@k per system")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def _latency_plot(figures: dict[str, Any], path: Path) -> None:
    samples = figures["latency_samples_ms"]
    fig, ax = plt.subplots(figsize=(7.5, 4))
    ax.boxplot(list(samples.values()), tick_labels=list(samples), whis=(5, 95), showfliers=False)
    for i, system in enumerate(samples, start=1):
        p50 = figures["latency_ms"][system]["p50"]
        ax.annotate(f"p50 {p50:.0f} ms", (i + 0.27, p50), va="center", fontsize="small")
    ax.set_yscale("log")
    ax.set_ylabel("ms per call (log scale)")
    ax.set_title("Latency per question (box: p25-p75, whiskers: p5-p95)")
    ax.grid(alpha=0.3, axis="y")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def routing_lines(figures: dict[str, Any]) -> list[str]:
    """The routing accuracy and the calibration error of ``retrieve``, as lines of text."""
    lines = []
    routing = figures.get("routing")
    if routing:
        lines.append(
            f"routing: auto picked a best pathway (by R@10) for {routing['correct']} of "
            f"{routing['differing']} questions where the forced pathways differ "
            f"(accuracy {routing['accuracy']:.3f}; {routing['questions']} questions); best "
            f"counts {routing['best_counts']}; auto chose {routing['chosen_counts']}"
        )
    calibration = figures.get("calibration")
    if calibration and calibration["results"]:
        lines.append(
            f"calibration: expected calibration error of retrieve's confidence "
            f"{calibration['ece']:.3f} over {calibration['results']} results "
            f"(10 bins; right = the result stands for an evidence turn)"
        )
    return lines


def reliability_plot(calibrations: dict[str, dict[str, Any]], path: Path) -> None:
    """A reliability diagram: per confidence bin, the fraction of results that are right,
    one line per entry of ``calibrations`` (label -> :func:`~engrava_graph.demo.metrics.
    calibration` output); the diagonal is perfect calibration."""
    fig, ax = plt.subplots(figsize=(5.2, 5))
    ax.plot([0, 1], [0, 1], linestyle="--", color="grey", label="perfect calibration")
    for label, calibration in calibrations.items():
        bins = [b for b in calibration["bins"] if b["n"]]
        ax.plot(
            [b["confidence"] for b in bins],
            [b["accuracy"] for b in bins],
            marker="o",
            label=f"{label} (ECE {calibration['ece']:.3f}, n={calibration['results']})",
        )
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1)
    ax.set_xlabel("confidence (mean of the bin)")
    ax.set_ylabel("fraction of results that are evidence")
    ax.set_title("retrieve: reliability of confidence (10 bins)")
    ax.grid(alpha=0.3)
    ax.legend(loc="upper left", fontsize="small")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def write_report(directory: Path, figures: dict[str, Any]) -> ReportFiles:
    """Write the report files into ``directory`` (created; existing files replaced)."""
    directory.mkdir(parents=True, exist_ok=True)
    files = ReportFiles(
        directory=directory,
        figures=directory / "figures.json",
        summary=directory / "summary.md",
        recall_plot=directory / "recall_at_k.png",
        latency_plot=directory / "latency.png",
    )
    files.figures.write_text(json.dumps(figures, indent=1, default=str) + "\n", encoding="utf-8")
    files.summary.write_text(summary_markdown(figures), encoding="utf-8")
    _recall_plot(figures, files.recall_plot)
    _latency_plot(figures, files.latency_plot)
    calibrations = {
        block: f["calibration"]
        for block, f in block_sections(figures)
        if (f.get("calibration") or {}).get("results")
    }
    if calibrations:
        files = dataclasses.replace(files, reliability_plot=directory / "reliability.png")
        reliability_plot(calibrations, files.reliability_plot)  # type: ignore[arg-type]
    return files
