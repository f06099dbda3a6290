"""The embedder alone: sentence-transformers on torch against the ONNX backend, taking turns.

Both are :class:`~engrava_graph.embeddings.SentenceTransformerProvider` on the bundled
all-MiniLM-L6-v2, one thread each, the query cache off (``cache_size=0``):
``backend="torch"`` and ``backend="onnx"``. No Neo4j.

- ``query``: one question per call (``provider.embed([q])``), as ``retrieve`` embeds; for every
  question both backends run once, the first alternating. Questions: every LoCoMo QA question
  of ``--locomo`` (default ``/work/shared/data/locomo/locomo7.json``), else ``--queries``
  synthetic ones (:meth:`_common.CorpusGenerator.queries`).
- ``batch``: ``--batch`` texts per call (default 64, the provider's batch size), as a store of
  many thoughts embeds: the thoughts of the first LoCoMo conversation (else synthetic ones),
  batch by batch, backends alternating.

Printed: p50/p95/p99 (ms) per call and texts/s, ONNX's p50 over torch's, the largest absolute
difference between the two backends' vectors, each provider's first call (model load; for ONNX
the export, or the cached file's load when ``onnx_export_cached``) and the load average before
and after.

Run::

    PYTHONPATH=. HF_HUB_OFFLINE=1 python benchmarks/bench_embed.py --json embed.json
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np
from rich.console import Console
from rich.table import Table

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.append(str(Path(__file__).resolve().parents[1]))  # after PYTHONPATH

from _common import CorpusGenerator, loadavg, machine_info, percentiles, quiet_runtime

from engrava_graph.demo.locomo import DatasetError, load_dataset
from engrava_graph.embeddings import SentenceTransformerProvider
from engrava_graph.embeddings.onnx_backend import OnnxSpec
from engrava_graph.embeddings.sentence_transformer import bundled_model_path

console = Console(stderr=True)
BACKENDS = ("torch", "onnx")
LOCOMO_FILE = Path("/work/shared/data/locomo/locomo7.json")


def _texts(args: argparse.Namespace) -> tuple[str, list[str], list[str]]:
    """(source, questions, documents)."""
    try:
        conversations = load_dataset(args.locomo)
    except DatasetError as exc:
        console.print(f"[yellow]no LoCoMo ({exc}); synthetic texts[/]")
        generator = CorpusGenerator(seed=7)
        documents = [t.text for t in generator.thoughts(args.documents)]
        return "synthetic", generator.queries(args.queries), documents
    questions = [q.question for conv in conversations for q in conv.questions]
    documents = [t.content for t in conversations[0].thoughts][: args.documents]
    return f"locomo ({args.locomo.name})", questions, documents


def _timed(provider: SentenceTransformerProvider, texts: list[str]) -> tuple[float, np.ndarray]:
    """(milliseconds, vectors) of ``provider.embed(texts)``."""
    start = time.perf_counter()
    vectors = provider.embed(texts)
    return (time.perf_counter() - start) * 1000, vectors


def _turns(
    providers: dict[str, SentenceTransformerProvider], calls: list[list[str]]
) -> tuple[dict[str, list[float]], float]:
    """Each call's texts through both backends (the first alternating): the milliseconds per
    backend, and the largest absolute difference between their vectors."""
    ms: dict[str, list[float]] = {name: [] for name in BACKENDS}
    difference = 0.0
    for i, texts in enumerate(calls):
        vectors = {}
        for name in BACKENDS if i % 2 == 0 else BACKENDS[::-1]:
            elapsed, vectors[name] = _timed(providers[name], texts)
            ms[name].append(elapsed)
        difference = max(difference, float(np.abs(vectors["torch"] - vectors["onnx"]).max()))
    return ms, difference


def run(args: argparse.Namespace) -> dict[str, Any]:
    source, questions, documents = _texts(args)
    load_before = loadavg()
    export_cached = OnnxSpec.from_dir(bundled_model_path()).cache_path().exists()
    providers, first_call_ms = {}, {}
    for name in BACKENDS:
        providers[name] = SentenceTransformerProvider(cache_size=0, backend=name)  # type: ignore[arg-type]
        first_call_ms[name], _ = _timed(providers[name], ["warm up"])
    for question in questions[: args.warmup]:
        for provider in providers.values():
            provider.embed([question])
    batches = [documents[i : i + args.batch] for i in range(0, len(documents), args.batch)]
    query_ms, query_difference = _turns(providers, [[q] for q in questions])
    batch_ms, batch_difference = _turns(providers, batches)
    figures: dict[str, Any] = {}
    for name in BACKENDS:
        figures[name] = {
            "first_call_ms": first_call_ms[name],
            "query": percentiles(query_ms[name]),
            "batch": percentiles(batch_ms[name]),
            "batch_texts_per_s": len(documents) / (sum(batch_ms[name]) / 1000),
        }
    return {
        "when": datetime.now(UTC).isoformat(timespec="seconds"),
        "machine": machine_info(),
        "source": source,
        "questions": len(questions),
        "documents": len(documents),
        "batch": args.batch,
        "figures": figures,
        "onnx_export_cached": export_cached,
        "max_abs_difference": max(query_difference, batch_difference),
        "load_before": load_before,
        "load_after": loadavg(),
    }


def _print(result: dict[str, Any]) -> None:
    table = Table(title=f"embedder alone, {result['source']}, 1 thread, cache off")
    for column in ("backend", "first call ms", "query p50", "p95", "p99", "batch p50", "texts/s"):
        table.add_column(column, justify="right")
    for name in BACKENDS:
        f = result["figures"][name]
        q, b = f["query"], f["batch"]
        table.add_row(
            name,
            f"{f['first_call_ms']:.0f}",
            *(f"{q[p]:.2f}" for p in ("p50", "p95", "p99")),
            f"{b['p50']:.1f}",
            f"{f['batch_texts_per_s']:.0f}",
        )
    console.print(table)
    torch_f, onnx_f = (result["figures"][name] for name in BACKENDS)
    console.print(
        f"{result['questions']} questions, {result['documents']} documents in batches of "
        f"{result['batch']}; ONNX/torch p50: query "
        f"{onnx_f['query']['p50'] / torch_f['query']['p50']:.2f}, batch "
        f"{onnx_f['batch']['p50'] / torch_f['batch']['p50']:.2f}; max |torch - onnx| "
        f"{result['max_abs_difference']:.1e}; load {result['load_before']} -> "
        f"{result['load_after']}; ONNX first call "
        + ("loaded the cached export" if result["onnx_export_cached"] else "exported the model")
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--locomo", type=Path, default=LOCOMO_FILE)
    parser.add_argument("--queries", type=int, default=500, help="synthetic questions")
    parser.add_argument("--documents", type=int, default=640, help="texts embedded in batches")
    parser.add_argument("--batch", type=int, default=64, help="texts per batch call")
    parser.add_argument("--warmup", type=int, default=20, help="questions run before timing")
    parser.add_argument("--json", type=Path, help="also write the figures here")
    args = parser.parse_args()
    quiet_runtime()
    result = run(args)
    _print(result)
    if args.json:
        args.json.write_text(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
