"""The command step of the mesh-report workflow: an SVG wireframe of every normalized mesh.

    python -m wfx_examples.mesh.preview

Reads `$WFX_OUTPUT_DIR/normalized/*.obj`, writes `$WFX_OUTPUT_DIR/preview/<name>.svg`:
an orthographic view from above and to the side, back faces culled, faces painted far to near
with flat shading and their edges drawn.
"""

from __future__ import annotations

import math
import os
import sys
from pathlib import Path
from xml.sax.saxutils import escape

from .obj import Mesh, Vector, dot, face_edges, length, read_obj

SIZE = 320
_YAW = math.radians(65)
_PITCH = math.radians(20)
_LIGHT = (0.35, 0.6, 0.72)  # towards the light, in view space; roughly unit length


def _view(point: Vector) -> Vector:
    """Rotate about y (yaw), then about x (pitch); the viewer looks down -z."""
    x, y, z = point
    x, z = x * math.cos(_YAW) - z * math.sin(_YAW), x * math.sin(_YAW) + z * math.cos(_YAW)
    y, z = y * math.cos(_PITCH) + z * math.sin(_PITCH), -y * math.sin(_PITCH) + z * math.cos(_PITCH)
    return x, y, z


def _newell_normal(points: list[Vector]) -> Vector:
    # robust for any planar-ish polygon, not only triangles
    nx = ny = nz = 0.0
    for (x1, y1, z1), (x2, y2, z2) in zip(points, points[1:] + points[:1], strict=True):
        nx += (y1 - y2) * (z1 + z2)
        ny += (z1 - z2) * (x1 + x2)
        nz += (x1 - x2) * (y1 + y2)
    return nx, ny, nz


def visible_faces(mesh: Mesh) -> list[tuple[tuple[int, ...], list[Vector], float]]:
    """The faces turned towards the viewer, far to near: (face, viewed points, light 0..1)."""
    viewed = [_view(point) for point in mesh.vertices]
    visible: list[tuple[float, tuple[int, ...], list[Vector], float]] = []
    for face in mesh.faces:
        points = [viewed[index] for index in face]
        normal = _newell_normal(points)
        size = length(normal)
        if normal[2] <= 0 or size == 0:
            continue  # faces away from the viewer, or has no area
        light = max(0.0, dot(normal, _LIGHT) / size)
        depth = sum(point[2] for point in points) / len(points)
        visible.append((depth, face, points, light))
    visible.sort(key=lambda item: item[0])  # painter's algorithm: far faces first
    return [(face, points, light) for _, face, points, light in visible]


def drawn_edges(mesh: Mesh) -> set[tuple[int, int]]:
    """The edges of every visible face."""
    return {edge for face, _, _ in visible_faces(mesh) for edge in face_edges(face)}


def render_svg(mesh: Mesh) -> str:
    scale = SIZE / 1.9  # a unit-cube mesh spans at most sqrt(3) after rotation
    half = SIZE / 2
    shapes = []
    for _, points, light in visible_faces(mesh):
        outline = " ".join(f"{half + x * scale:.2f},{half - y * scale:.2f}" for x, y, _ in points)
        shade = round(90 + 140 * light)
        fill = f"rgb({shade},{shade + 10},{min(255, shade + 30)})"
        shapes.append(f'<polygon points="{outline}" fill="{fill}"/>')
    title = escape(f"{mesh.name}: {len(mesh.vertices)} vertices, {len(mesh.faces)} faces")
    return "\n".join(
        [
            f'<svg xmlns="http://www.w3.org/2000/svg" width="{SIZE}" height="{SIZE}" '
            f'viewBox="0 0 {SIZE} {SIZE}">',
            f"<title>{title}</title>",
            f'<rect width="{SIZE}" height="{SIZE}" fill="#f7f7f5"/>',
            '<g stroke="#1d2b3a" stroke-width="0.6" stroke-linejoin="round">',
            *shapes,
            "</g>",
            "</svg>",
            "",
        ]
    )


def main() -> int:
    output_dir = os.environ.get("WFX_OUTPUT_DIR")
    if not output_dir:
        print("WFX_OUTPUT_DIR is not set: run this as a mesh-report step", file=sys.stderr)
        return 2
    sources = sorted((Path(output_dir) / "normalized").glob("*.obj"))
    if not sources:
        print(f"no meshes in {output_dir}/normalized: run mesh-normalize first", file=sys.stderr)
        return 1
    target = Path(output_dir) / "preview"
    target.mkdir(parents=True, exist_ok=True)
    for source in sources:
        mesh = read_obj(source)
        (target / f"{source.stem}.svg").write_text(render_svg(mesh), encoding="utf-8")
        print(f"preview/{source.stem}.svg: {len(drawn_edges(mesh))} edges drawn")
    return 0


if __name__ == "__main__":
    sys.exit(main())
