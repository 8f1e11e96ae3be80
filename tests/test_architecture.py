"""The layers in ARCHITECTURE.md, enforced by reading the imports."""

from __future__ import annotations

import ast
import pickle
import subprocess
import sys
from pathlib import Path

from forge.loading import load_spec

ROOT = Path(__file__).resolve().parents[1]
STDLIB_ONLY = {"forge.spec", "forge.errors", "forge.issues", "forge.spec_format"}
MCP_MODULES = {"forge.server", "forge.serving"}
TEST_TOOLING = {"vcr", "schemathesis", "respx", "pytest", "hypothesis"}


class _Imports(ast.NodeVisitor):
    """Absolute imports of a module, leaving out `if TYPE_CHECKING:` blocks."""

    def __init__(self) -> None:
        self.found: set[str] = set()

    def visit_If(self, node: ast.If) -> None:
        if "TYPE_CHECKING" not in ast.unparse(node.test):
            self.generic_visit(node)

    def visit_Import(self, node: ast.Import) -> None:
        self.found |= {alias.name for alias in node.names}

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        if node.module and node.level == 0:
            self.found.add(node.module)


def module_imports(path: Path) -> set[str]:
    visitor = _Imports()
    visitor.visit(ast.parse(path.read_text(encoding="utf-8")))
    return visitor.found


def forge_modules() -> dict[str, set[str]]:
    modules = {}
    for path in sorted((ROOT / "forge").rglob("*.py")):
        name = ".".join(path.relative_to(ROOT).with_suffix("").parts).removesuffix(".__init__")
        modules[name] = module_imports(path)
    return modules


def test_the_model_and_errors_use_the_standard_library_only() -> None:
    for name, imports in forge_modules().items():
        if name in STDLIB_ONLY:
            outside = {i for i in imports if i.split(".")[0] not in sys.stdlib_module_names and i != "__future__"}
            assert outside == set(), f"{name} imports {outside}"


def test_only_the_server_modules_import_mcp() -> None:
    for name, imports in forge_modules().items():
        if name not in MCP_MODULES:
            assert not {i for i in imports if i.split(".")[0] in ("mcp", "mcp_types")}, name


def test_forge_never_imports_test_tooling() -> None:
    for name, imports in forge_modules().items():
        assert not {i for i in imports if i.split(".")[0] in TEST_TOOLING}, name


def test_importing_forge_for_checks_pulls_in_neither_mcp_nor_test_tooling() -> None:
    code = (
        "import sys, forge.cli, forge.loading, forge.engine\n"
        "forge.cli._parser()\n"
        "heavy = sorted(m for m in ('mcp', 'uvicorn', 'graphql', 'vcr', 'schemathesis', 'respx') if m in sys.modules)\n"
        "print(','.join(heavy))"
    )
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert run.stdout.strip() == ""


def test_serving_a_cached_spec_loads_httpx_jsonschema_and_yaml_only_when_a_call_needs_them(tmp_path: Path) -> None:
    # A cached start (forge.cache unpickles the compiled spec) answers tools/list without
    # them: they would add ~8 MB and ~0.2 s to the moment a big spec's listing is built.
    spec = load_spec(ROOT / "bench" / "fixtures" / "petstore.json")
    (tmp_path / "spec.pickle").write_bytes(pickle.dumps(spec))
    code = (
        "import pickle, sys, forge.cli, forge.server, forge.serving\n"
        "from forge.engine import Engine\nfrom forge.gate import Gate\nfrom forge.tokenstore import MemoryTokenStore\n"
        "spec = pickle.loads(open(sys.argv[1], 'rb').read())\n"
        "forge.server.build_server(Engine([spec], gate=Gate(MemoryTokenStore())))\n"
        "print(','.join(sorted(m for m in ('httpx', 'jsonschema', 'yaml') if m in sys.modules)))"
    )
    run = subprocess.run([sys.executable, "-c", code, str(tmp_path / "spec.pickle")], capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip() == ""


def test_the_pure_core_does_no_io() -> None:
    pure = {"forge.render", "forge.serialize", "forge.schema", "forge.check", "forge.results", "forge.specfile"}
    io_modules = {"httpx", "socket", "subprocess", "sqlite3", "urllib.request", "anyio"}
    for name, imports in forge_modules().items():
        if name in pure:
            assert not {i for i in imports if i in io_modules}, f"{name} does I/O"
