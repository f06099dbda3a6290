"""`engrava-graph demo` refuses bad arguments before doing any work (no database needed)."""

from __future__ import annotations

from typer.testing import CliRunner

from engrava_graph.cli import app

runner = CliRunner()


def test_an_empty_conversation_list_is_refused_not_read_as_all():
    result = runner.invoke(app, ["demo", "--conversations", " , "])
    assert result.exit_code == 2
    assert "--conversations names no sample id" in result.output


def test_an_unwritable_report_directory_is_refused_before_the_run(tmp_path):
    blocker = tmp_path / "a-file"
    blocker.write_text("not a directory")
    result = runner.invoke(app, ["demo", "--out", str(blocker / "report")])
    assert result.exit_code == 2
    assert "cannot write the report" in result.output and "--out" in result.output
