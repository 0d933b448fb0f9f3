"""Regenerate ``audit/store/proto/cortex_pb2.py`` and its type stub ``cortex_pb2.pyi`` from
``cortex.proto`` (developer tool).

Run from anywhere with the project venv, which has grpcio-tools (a dev dependency, never needed
at run time)::

    python -m audit.store.proto.regenerate

Equivalent to ``python -m grpc_tools.protoc -I. --python_out=. --pyi_out=. audit/store/proto/cortex.proto``
run in the repository root. The ``.pyi`` stub lets mypy check uses of the generated messages. The include root is the repository, so the file registers in the protobuf
descriptor pool as ``audit/store/proto/cortex.proto`` rather than a bare, collision-prone name.
"""

from __future__ import annotations

from pathlib import Path


def main() -> int:
    import grpc_tools
    from grpc_tools import protoc

    root = Path(__file__).resolve().parents[3]
    well_known = Path(grpc_tools.__file__).parent / "_proto"
    proto = root / "audit" / "store" / "proto" / "cortex.proto"
    status: int = protoc.main(["protoc", f"-I{root}", f"-I{well_known}", f"--python_out={root}", f"--pyi_out={root}", str(proto)])
    return status


if __name__ == "__main__":
    raise SystemExit(main())
