"""Just enough Wavefront OBJ for the example: vertices and polygon faces, read and written."""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

Vector = tuple[float, float, float]


@dataclass(frozen=True)
class Mesh:
    """A polygon mesh: vertex positions and faces as 0-based vertex indices."""

    name: str
    vertices: tuple[Vector, ...]
    faces: tuple[tuple[int, ...], ...]

    def triangles(self) -> Iterator[tuple[Vector, Vector, Vector]]:
        """Each face as a fan of triangles (exact for the convex faces OBJ exporters write)."""
        points = self.vertices
        for face in self.faces:
            first = points[face[0]]
            for second, third in itertools.pairwise(face[1:]):
                yield first, points[second], points[third]

    def bounds(self) -> tuple[Vector, Vector]:
        if not self.vertices:
            return (0.0, 0.0, 0.0), (0.0, 0.0, 0.0)
        xs, ys, zs = zip(*self.vertices, strict=True)
        return (min(xs), min(ys), min(zs)), (max(xs), max(ys), max(zs))


def face_edges(face: tuple[int, ...]) -> Iterator[tuple[int, int]]:
    """The face's edges as (smaller, larger) vertex index pairs, closing the loop."""
    for a, b in zip(face, face[1:] + face[:1], strict=True):
        yield (a, b) if a < b else (b, a)


def read_obj(path: Path | str) -> Mesh:
    """Parse `v` and `f` lines; any other statement (normals, groups, materials) is skipped."""
    path = Path(path)
    vertices: list[Vector] = []
    faces: list[tuple[int, ...]] = []
    with open(path, encoding="utf-8") as lines:
        for number, line in enumerate(lines, start=1):
            fields = line.split()
            if not fields or fields[0] not in ("v", "f"):
                continue
            where = f"{path.name}:{number}"
            if fields[0] == "v":
                if len(fields) < 4:
                    raise ValueError(f"{where}: a vertex needs x y z")
                vertices.append((float(fields[1]), float(fields[2]), float(fields[3])))
            else:
                faces.append(tuple(_vertex_index(f, len(vertices), where) for f in fields[1:]))
                if len(faces[-1]) < 3:
                    raise ValueError(f"{where}: a face needs at least three vertices")
    return Mesh(name=path.stem, vertices=tuple(vertices), faces=tuple(faces))


def _vertex_index(field: str, seen: int, where: str) -> int:
    # `7`, `7/2`, `7//3` and `7/2/3` all name vertex 7; negative indices count back from the end
    index = int(field.split("/", 1)[0])
    resolved = seen + index if index < 0 else index - 1
    if not 0 <= resolved < seen:
        raise ValueError(f"{where}: vertex index {index} is out of range (1..{seen})")
    return resolved


def write_obj(mesh: Mesh, path: Path | str, comment: str = "") -> None:
    lines = [f"# {line}" for line in comment.splitlines()]
    lines.append(f"o {mesh.name}")
    lines.extend(f"v {_number(x)} {_number(y)} {_number(z)}" for x, y, z in mesh.vertices)
    lines.extend("f " + " ".join(str(index + 1) for index in face) for face in mesh.faces)
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def _number(value: float) -> str:
    text = f"{value:.5f}".rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text


def subtract(a: Vector, b: Vector) -> Vector:
    return (a[0] - b[0], a[1] - b[1], a[2] - b[2])


def cross(a: Vector, b: Vector) -> Vector:
    return (a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0])


def dot(a: Vector, b: Vector) -> float:
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]


def length(a: Vector) -> float:
    return math.sqrt(dot(a, a))
