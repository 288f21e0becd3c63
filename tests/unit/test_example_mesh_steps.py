"""The bundled mesh-report example, run step by step on its shipped meshes."""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
import wfx_examples.mesh
from wfx_examples.mesh.obj import Mesh, read_obj
from wfx_examples.mesh.preview import drawn_edges, render_svg
from wfx_examples.mesh.steps import compute_statistics, mesh_statistics, normalize

ASSETS = Path(wfx_examples.mesh.__file__).with_name("assets")
SHIPPED = sorted(ASSETS.glob("*.obj"))
SVG = "{http://www.w3.org/2000/svg}"


def _run(step: object, inputs: list[Path], output_dir: Path) -> None:
    assert callable(step)
    step(
        input_files=[str(p) for p in inputs],
        output_dir=str(output_dir),
        execution_id="exec-1",
        pipeline_execution_id="pipe-1",
    )


def test_the_example_ships_three_small_meshes() -> None:
    assert [p.name for p in SHIPPED] == ["bunny.obj", "icosphere.obj", "torus.obj"]
    assert all(p.stat().st_size < 40_000 for p in SHIPPED)


def test_statistics_count_vertices_faces_and_edges_of_each_mesh(tmp_path: Path) -> None:
    _run(compute_statistics, SHIPPED, tmp_path)

    report = json.loads((tmp_path / "statistics.json").read_text())
    by_name = {entry["name"]: entry for entry in report["meshes"]}
    assert report["executionId"] == "exec-1"
    assert (by_name["icosphere"]["vertexCount"], by_name["icosphere"]["faceCount"]) == (162, 320)
    assert by_name["icosphere"]["edgeCount"] == 480  # Euler: V - E + F = 2
    assert (by_name["torus"]["vertexCount"], by_name["torus"]["faceCount"]) == (448, 448)
    assert by_name["torus"]["triangleCount"] == 896  # quads, split in two
    assert all(entry["closed"] for entry in report["meshes"])


def test_statistics_measure_area_and_volume_close_to_the_smooth_shapes(tmp_path: Path) -> None:
    _run(compute_statistics, SHIPPED, tmp_path)

    by_name = {
        e["name"]: e for e in json.loads((tmp_path / "statistics.json").read_text())["meshes"]
    }
    sphere, torus = by_name["icosphere"], by_name["torus"]
    # inscribed polyhedra: a little under the smooth values, never over
    assert 0.95 * 4 * math.pi < sphere["surfaceArea"] < 4 * math.pi
    assert 0.93 * (4 / 3) * math.pi < sphere["volume"] < (4 / 3) * math.pi
    assert 0.93 * 2 * math.pi**2 * 0.35**2 < torus["volume"] < 2 * math.pi**2 * 0.35**2
    assert sphere["boundingBox"]["size"] == [2.0, 2.0, 2.0]


def test_volume_uses_the_divergence_theorem_on_a_unit_cube() -> None:
    corners = tuple((float(x), float(y), float(z)) for x in (0, 1) for y in (0, 1) for z in (0, 1))
    # outward quads of the cube with corner index x*4 + y*2 + z
    faces = ((0, 1, 3, 2), (4, 6, 7, 5), (0, 4, 5, 1), (2, 3, 7, 6), (0, 2, 6, 4), (1, 5, 7, 3))
    cube = Mesh("cube", corners, faces)

    stats = mesh_statistics(cube)

    assert stats["volume"] == pytest.approx(1.0)
    assert stats["surfaceArea"] == pytest.approx(6.0)
    assert stats["edgeCount"] == 12
    assert stats["closed"] is True


def test_statistics_metadata_is_a_flat_object_of_strings(tmp_path: Path) -> None:
    _run(compute_statistics, SHIPPED, tmp_path)

    metadata = json.loads((tmp_path / "metadata" / "statistics.json.json").read_text())

    assert metadata["meshCount"] == "3"
    assert metadata["vertexCount"] == str(642 + 162 + 448)
    assert all(isinstance(value, str) for value in metadata.values())


def test_statistics_refuse_a_run_without_meshes(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="no input meshes"):
        _run(compute_statistics, [], tmp_path)


def test_normalize_centres_each_mesh_and_fits_it_in_the_unit_cube(tmp_path: Path) -> None:
    _run(normalize, SHIPPED, tmp_path)

    for source in SHIPPED:
        mesh = read_obj(tmp_path / "normalized" / source.name)
        low, high = mesh.bounds()
        sizes = [hi - lo for lo, hi in zip(low, high, strict=True)]
        assert max(sizes) == pytest.approx(1.0, abs=1e-4)
        for lo, hi in zip(low, high, strict=True):
            assert lo >= -0.5 - 1e-5
            assert hi <= 0.5 + 1e-5
            assert (lo + hi) / 2 == pytest.approx(0.0, abs=1e-4)
        assert mesh.faces == read_obj(source).faces


def test_normalize_keeps_two_meshes_of_the_same_name_apart(tmp_path: Path) -> None:
    twin = tmp_path / "elsewhere" / "torus.obj"
    twin.parent.mkdir()
    twin.write_text((ASSETS / "torus.obj").read_text())

    _run(normalize, [ASSETS / "torus.obj", twin], tmp_path / "out")

    assert sorted(p.name for p in (tmp_path / "out" / "normalized").iterdir()) == [
        "torus-2.obj",
        "torus.obj",
    ]


def test_a_preview_is_well_formed_svg_with_only_front_faces(tmp_path: Path) -> None:
    _run(normalize, [ASSETS / "icosphere.obj"], tmp_path)
    mesh = read_obj(tmp_path / "normalized" / "icosphere.obj")

    root = ET.fromstring(render_svg(mesh))

    polygons = root.findall(f".//{SVG}polygon")
    assert root.tag == f"{SVG}svg"
    # a convex closed mesh shows about half its faces, never all of them
    assert 0.35 * len(mesh.faces) < len(polygons) < 0.65 * len(mesh.faces)
    assert 0 < len(drawn_edges(mesh)) < 480


def test_the_preview_command_writes_one_svg_per_normalized_mesh(tmp_path: Path) -> None:
    _run(normalize, SHIPPED, tmp_path)

    result = subprocess.run(
        [sys.executable, "-m", "wfx_examples.mesh.preview"],
        env={**os.environ, "WFX_OUTPUT_DIR": str(tmp_path)},
        capture_output=True,
        text=True,
        check=False,
    )

    assert result.returncode == 0, result.stderr
    for source in SHIPPED:
        svg = ET.parse(tmp_path / "preview" / f"{source.stem}.svg").getroot()
        assert svg.findall(f".//{SVG}polygon")
    assert "preview/torus.svg" in result.stdout


def test_the_preview_command_fails_when_there_is_nothing_to_draw(tmp_path: Path) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "wfx_examples.mesh.preview"],
        env={**os.environ, "WFX_OUTPUT_DIR": str(tmp_path)},
        capture_output=True,
        text=True,
        check=False,
    )

    assert result.returncode == 1
    assert "run mesh-normalize first" in result.stderr


def test_a_face_naming_a_missing_vertex_is_reported_with_its_line(tmp_path: Path) -> None:
    broken = tmp_path / "broken.obj"
    broken.write_text("v 0 0 0\nv 1 0 0\nf 1 2 3\n")

    with pytest.raises(ValueError, match=r"broken.obj:3: vertex index 3"):
        read_obj(broken)
