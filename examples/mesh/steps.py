"""The python steps of the mesh-report workflow: statistics, then normalization.

Each step is called by the runner as
`step(input_files=[...], output_dir=..., execution_id=..., pipeline_execution_id=...)`;
everything it writes under `output_dir` becomes an output file of the run.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from .obj import Mesh, cross, dot, face_edges, length, read_obj, subtract, write_obj

STATISTICS_FILE = "statistics.json"
NORMALIZED_FOLDER = "normalized"


def mesh_statistics(mesh: Mesh) -> dict[str, Any]:
    """Counts, bounds, area and enclosed volume (divergence theorem) of one mesh."""
    area = 0.0
    six_volume = 0.0
    triangles = 0
    for a, b, c in mesh.triangles():
        area += length(cross(subtract(b, a), subtract(c, a))) / 2
        six_volume += dot(a, cross(b, c))  # signed tetrahedron against the origin, times six
        triangles += 1
    edges = Counter(edge for face in mesh.faces for edge in face_edges(face))
    low, high = mesh.bounds()
    return {
        "name": mesh.name,
        "vertexCount": len(mesh.vertices),
        "faceCount": len(mesh.faces),
        "triangleCount": triangles,
        "edgeCount": len(edges),
        # closed (watertight) when every edge is shared by exactly two faces
        "closed": bool(edges) and all(uses == 2 for uses in edges.values()),
        "boundingBox": {
            "min": [round(v, 6) for v in low],
            "max": [round(v, 6) for v in high],
            "size": [round(h - lo, 6) for lo, h in zip(low, high, strict=True)],
        },
        "surfaceArea": round(area, 6),
        "volume": round(abs(six_volume) / 6, 6),
    }


def compute_statistics(
    input_files: Sequence[str], output_dir: str, execution_id: str, pipeline_execution_id: str
) -> None:
    """Write `statistics.json` (one entry per mesh) and its flat metadata file."""
    meshes = [read_obj(path) for path in input_files]
    if not meshes:
        raise ValueError("no input meshes: select one or more .obj files")
    entries = [mesh_statistics(mesh) for mesh in meshes]
    for entry in entries:
        print(
            f"{entry['name']}: {entry['vertexCount']} vertices, {entry['faceCount']} faces, "
            f"area {entry['surfaceArea']}, volume {entry['volume']}"
        )
    report = {"executionId": execution_id, "meshes": entries}
    out = Path(output_dir)
    (out / STATISTICS_FILE).write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")

    metadata = {
        "meshCount": str(len(entries)),
        "meshes": ", ".join(entry["name"] for entry in entries),
        "vertexCount": str(sum(entry["vertexCount"] for entry in entries)),
        "faceCount": str(sum(entry["faceCount"] for entry in entries)),
        "surfaceArea": f"{sum(entry['surfaceArea'] for entry in entries):.6f}",
        "volume": f"{sum(entry['volume'] for entry in entries):.6f}",
        "allClosed": str(all(entry["closed"] for entry in entries)).lower(),
    }
    metadata_file = out / "metadata" / f"{STATISTICS_FILE}.json"
    metadata_file.parent.mkdir(parents=True, exist_ok=True)
    metadata_file.write_text(json.dumps(metadata, indent=2) + "\n", encoding="utf-8")


def normalized(mesh: Mesh) -> Mesh:
    """The mesh centred on the origin and scaled so its longest side is 1 (inside the unit cube)."""
    low, high = mesh.bounds()
    centre = tuple((lo + hi) / 2 for lo, hi in zip(low, high, strict=True))
    longest = max(hi - lo for lo, hi in zip(low, high, strict=True))
    scale = 1 / longest if longest > 0 else 1.0
    vertices = tuple(
        ((x - centre[0]) * scale, (y - centre[1]) * scale, (z - centre[2]) * scale)
        for x, y, z in mesh.vertices
    )
    return Mesh(mesh.name, vertices, mesh.faces)


def normalize(
    input_files: Sequence[str], output_dir: str, execution_id: str, pipeline_execution_id: str
) -> None:
    """Write `normalized/<name>.obj` for every input mesh."""
    if not input_files:
        raise ValueError("no input meshes: select one or more .obj files")
    folder = Path(output_dir) / NORMALIZED_FOLDER
    used: set[str] = set()
    for path in input_files:
        mesh = normalized(read_obj(path))
        name = _unique(mesh.name, used)
        write_obj(mesh, folder / f"{name}.obj", f"{mesh.name}, centred, scaled into the unit cube")
        print(f"normalized {Path(path).name} -> {NORMALIZED_FOLDER}/{name}.obj")


def _unique(name: str, used: set[str]) -> str:
    # two assets may both hold a `mesh.obj`; neither output may overwrite the other
    candidate, n = name, 1
    while candidate in used:
        n += 1
        candidate = f"{name}-{n}"
    used.add(candidate)
    return candidate
