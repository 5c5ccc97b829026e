"""``python -m evalframe``: the metrics and worst queries of the demo result shipped with evalframe."""

from __future__ import annotations

import sys

from . import __version__, load_demo_result
from .result import EvaluationResult


def _cut(text: object, width: int = 70) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= width else text[: width - 3] + "..."


def describe(result: EvaluationResult, *, n: int = 3) -> str:
    """Text summary of a result: every node's metrics, then its ``n`` worst queries."""
    lines = []
    metrics = result.calculate_metrics()
    for node, values in metrics.items():
        lines.append(f"{node}")
        for name, value in values.items():
            shown = f"{value:.0f}" if name == "num_examples_for_eval" else f"{value:.4f}"
            lines.append(f"  {name:<20} {shown:>8}")
        has_answers = "exact_match" in values
        metric = "f1" if has_answers else "recall_single_hit"
        worst = result.wrong_examples(node, n=n)
        lines.append(f"  worst queries by {metric}:" if worst else f"  no query scores {metric} <= 0.5")
        for example in worst:
            lines.append(f"    {example['metrics'][metric]:.2f}  {_cut(example['query'])}")
            if has_answers:
                lines.append(f"          gold: {_cut(example['gold_answers'], 60)}")
                top = example["answers"][0]
                lines.append(f"          top answer: {_cut(top['answer'], 54)}")
            else:
                lines.append(f"          gold ids: {_cut(example['gold_document_ids'], 56)}")
                top = example["documents"][0]
                lines.append(f"          rank 1: {_cut(top['context'], 58)}")
        lines.append("")
    return "\n".join(lines)


def main() -> int:
    if len(sys.argv) > 1:  # python -m evalframe <command> ...: the evalframe command
        from .cli import main as cli

        return cli(sys.argv[1:])
    result = load_demo_result()
    print(f"evalframe {__version__}: demo evaluation result ({', '.join(result)})\n")
    print(describe(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
