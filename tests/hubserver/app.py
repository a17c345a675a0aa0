"""A local, in-memory stand-in for the Hugging Face Hub HTTP API — a test double, on purpose.

The real Hub cannot exist in tests or CI (no internet), and no installable server implements its
write API (see the project's offline notes, §6), so this is the one test double corpusbench allows.
It implements what ``huggingface_hub`` 2.x and ``datasets`` 5.x send to create a dataset repo, commit
files (inline and through the git-LFS "basic" batch + PUT), tag, list refs and trees and resolve files,
with the error typing (``X-Error-Code``) the clients rely on. Writes need a Bearer token (any value);
private repos are hidden from anonymous reads. State lives in memory: one ``HubState`` per server.
"""

from __future__ import annotations

import base64
import hashlib
import json
from dataclasses import dataclass, field
from datetime import UTC, datetime
from urllib.parse import parse_qs

import yaml
from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse, Response

LFS_SUFFIXES = (".parquet", ".arrow", ".bin", ".safetensors", ".gguf", ".pt")
KINDS = {"datasets": "dataset", "models": "model"}
GITATTRIBUTES = b"*.parquet filter=lfs diff=lfs merge=lfs -text\n"


@dataclass
class Blob:
    data: bytes
    lfs: bool

    @property
    def oid(self) -> str:
        """git blob sha1 (what the Hub reports as a file's ``oid``)."""
        return hashlib.sha1(b"blob %d\0" % len(self.data) + self.data).hexdigest()

    @property
    def sha256(self) -> str:
        return hashlib.sha256(self.data).hexdigest()


@dataclass
class Commit:
    sha: str
    parent: str | None
    files: dict[str, Blob]
    summary: str
    date: str


@dataclass
class Repo:
    kind: str
    repo_id: str
    private: bool
    commits: dict[str, Commit] = field(default_factory=dict)
    branches: dict[str, str] = field(default_factory=dict)
    tags: dict[str, str] = field(default_factory=dict)
    lfs: dict[str, bytes] = field(default_factory=dict)

    def resolve(self, rev: str) -> Commit | None:
        sha = self.branches.get(rev) or self.tags.get(rev) or (rev if rev in self.commits else None)
        return self.commits.get(sha) if sha else None


@dataclass
class HubState:
    repos: dict[tuple[str, str], Repo] = field(default_factory=dict)
    requests: list[tuple[str, str, int]] = field(default_factory=list)  # (method, path, status)
    unhandled: list[tuple[str, str]] = field(default_factory=list)
    counter: int = 0
    # Fault injection for failure-path tests: "commit" answers 500 to commits; "swap-lfs" stores the
    # first two LFS files of a commit under each other's paths (data that no longer round-trips).
    faults: set[str] = field(default_factory=set)

    def new_commit(self, repo: Repo, parent: Commit | None, files: dict[str, Blob], summary: str) -> Commit:
        self.counter += 1
        digest = hashlib.sha1(
            f"{repo.repo_id}|{parent.sha if parent else ''}|{self.counter}|{summary}".encode()
        )
        commit = Commit(
            sha=digest.hexdigest(),
            parent=parent.sha if parent else None,
            files=files,
            summary=summary,
            date=datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%S.000Z"),
        )
        repo.commits[commit.sha] = commit
        return commit


def _error(status: int, code: str | None, message: str) -> JSONResponse:
    headers = {"X-Error-Message": message}
    if code:
        headers["X-Error-Code"] = code
    return JSONResponse({"error": message}, status_code=status, headers=headers)


def create_app(state: HubState) -> FastAPI:
    app = FastAPI(title="hub stand-in")

    @app.middleware("http")
    async def record(request: Request, call_next):  # type: ignore[no-untyped-def]
        response = await call_next(request)
        state.requests.append((request.method, request.url.path, response.status_code))
        return response

    def authed(request: Request) -> bool:
        return request.headers.get("authorization", "").startswith("Bearer ")

    def get_repo(request: Request, kind: str, ns: str, name: str) -> Repo | JSONResponse:
        repo = state.repos.get((KINDS.get(kind, ""), f"{ns}/{name}"))
        if repo is None or (repo.private and not authed(request)):
            return _error(404, "RepoNotFound", f"Repository {ns}/{name} not found")
        return repo

    def get_commit(
        request: Request, kind: str, ns: str, name: str, rev: str
    ) -> tuple[Repo, Commit] | JSONResponse:
        repo = get_repo(request, kind, ns, name)
        if isinstance(repo, JSONResponse):
            return repo
        commit = repo.resolve(rev)
        if commit is None:
            return _error(404, "RevisionNotFound", f"Invalid rev id: {rev}")
        return repo, commit

    @app.post("/api/repos/create")
    async def create_repo(request: Request) -> Response:
        if not authed(request):
            return _error(401, None, "Invalid credentials in Authorization header")
        body = await request.json()
        kind = body.get("type") or "model"
        ns = body.get("organization") or "user"
        repo_id = f"{ns}/{body['name']}"
        url = f"{str(request.base_url).rstrip('/')}/{'datasets/' if kind == 'dataset' else ''}{repo_id}"
        if (kind, repo_id) in state.repos:
            return JSONResponse({"error": "You already created this repo", "url": url}, status_code=409)
        private = body.get("visibility", "private" if body.get("private") else "public") != "public"
        repo = Repo(kind=kind, repo_id=repo_id, private=private)
        state.repos[(kind, repo_id)] = repo
        first = state.new_commit(repo, None, {".gitattributes": Blob(GITATTRIBUTES, False)}, "initial commit")
        repo.branches["main"] = first.sha
        return JSONResponse({"url": url, "name": repo_id, "id": repo_id})

    @app.get("/api/{kind}/{ns}/{name}")
    @app.get("/api/{kind}/{ns}/{name}/revision/{rev}")
    async def repo_info(request: Request, kind: str, ns: str, name: str, rev: str = "main") -> Response:
        found = get_commit(request, kind, ns, name, rev)
        if isinstance(found, JSONResponse):
            return found
        repo, commit = found
        return JSONResponse(
            {
                "id": repo.repo_id,
                "_id": hashlib.md5(repo.repo_id.encode()).hexdigest()[:24],
                "author": ns,
                "sha": commit.sha,
                "private": repo.private,
                "disabled": False,
                "gated": False,
                "downloads": 0,
                "likes": 0,
                "tags": [],
                "lastModified": commit.date,
                "createdAt": commit.date,
                "siblings": [{"rfilename": p} for p in sorted(commit.files)],
            }
        )

    @app.post("/api/validate-yaml")
    async def validate_yaml(request: Request) -> Response:
        content = (await request.json()).get("content", "")
        if content.startswith("---"):
            try:
                yaml.safe_load(content.split("---", 2)[1])
            except yaml.YAMLError as e:
                return JSONResponse({"error": f"Invalid YAML in README.md: {e}"}, status_code=400)
        return JSONResponse({"errors": [], "warnings": []})

    @app.post("/api/{kind}/{ns}/{name}/preupload/{rev}")
    async def preupload(request: Request, kind: str, ns: str, name: str, rev: str) -> Response:
        repo = get_repo(request, kind, ns, name)
        if isinstance(repo, JSONResponse):
            return repo
        files = (await request.json()).get("files", [])
        return JSONResponse(
            {
                "files": [
                    {
                        "path": f["path"],
                        "shouldIgnore": False,
                        "uploadMode": "lfs"
                        if f["path"].endswith(LFS_SUFFIXES) and f.get("size", 0) > 0
                        else "regular",
                    }
                    for f in files
                ]
            }
        )

    async def lfs_batch(request: Request, kind: str, ns: str, name_git: str) -> Response:
        repo = get_repo(request, kind, ns, name_git.removesuffix(".git"))
        if isinstance(repo, JSONResponse):
            return repo
        body = await request.json()
        base = str(request.base_url).rstrip("/")
        objects = []
        for obj in body.get("objects", []):
            entry = {"oid": obj["oid"], "size": obj["size"]}
            if obj["oid"] not in repo.lfs:
                entry["actions"] = {
                    "upload": {"href": f"{base}/_lfs/{kind}/{repo.repo_id}/{obj['oid']}", "header": {}}
                }
            objects.append(entry)
        return JSONResponse(
            {"transfer": "basic", "objects": objects}, media_type="application/vnd.git-lfs+json"
        )

    @app.post("/datasets/{ns}/{name_git}/info/lfs/objects/batch")
    async def lfs_batch_dataset(request: Request, ns: str, name_git: str) -> Response:
        return await lfs_batch(request, "datasets", ns, name_git)

    @app.post("/{ns}/{name_git}/info/lfs/objects/batch")
    async def lfs_batch_model(request: Request, ns: str, name_git: str) -> Response:
        return await lfs_batch(request, "models", ns, name_git)

    @app.put("/_lfs/{kind}/{ns}/{name}/{oid}")
    async def lfs_put(request: Request, kind: str, ns: str, name: str, oid: str) -> Response:
        repo = state.repos.get((KINDS.get(kind, ""), f"{ns}/{name}"))
        if repo is None:
            return _error(404, "RepoNotFound", f"Repository {ns}/{name} not found")
        data = await request.body()
        if hashlib.sha256(data).hexdigest() != oid:
            return _error(400, None, "sha256 of the body does not match the oid")
        repo.lfs[oid] = data
        return JSONResponse({})

    @app.post("/api/{kind}/{ns}/{name}/commit/{rev}")
    async def commit(request: Request, kind: str, ns: str, name: str, rev: str) -> Response:
        if not authed(request):
            return _error(401, None, "Invalid credentials in Authorization header")
        found = get_commit(request, kind, ns, name, rev)
        if isinstance(found, JSONResponse):
            return found
        repo, parent = found
        if "commit" in state.faults:
            return _error(500, None, "injected fault: commit failed")
        if rev not in repo.branches:
            return _error(400, None, f"can only commit to a branch, not {rev}")
        files, summary, lfs_paths = dict(parent.files), "", []
        for line in (await request.body()).decode().splitlines():
            if not line.strip():
                continue
            op = json.loads(line)
            key, value = op.get("key"), op.get("value", {})
            if key == "header":
                summary = value.get("summary", "")
            elif key == "file":
                files[value["path"]] = Blob(base64.b64decode(value["content"]), False)
            elif key == "lfsFile":
                if value["oid"] not in repo.lfs:
                    return _error(
                        422, None, f"LFS object {value['oid']} of {value['path']} was never uploaded"
                    )
                files[value["path"]] = Blob(repo.lfs[value["oid"]], True)
                lfs_paths.append(value["path"])
            elif key == "deletedFile":
                files.pop(value["path"], None)
            elif key == "deletedFolder":
                prefix = value["path"].rstrip("/") + "/"
                files = {p: b for p, b in files.items() if not p.startswith(prefix)}
            else:
                return _error(400, None, f"unknown commit operation key {key!r}")
        if "swap-lfs" in state.faults and len(lfs_paths) >= 2:
            a, b = lfs_paths[:2]
            files[a], files[b] = files[b], files[a]
        new = state.new_commit(repo, parent, files, summary)
        repo.branches[rev] = new.sha
        prefix = "datasets/" if repo.kind == "dataset" else ""
        url = f"{str(request.base_url).rstrip('/')}/{prefix}{repo.repo_id}"
        return JSONResponse(
            {"commitUrl": f"{url}/commit/{new.sha}", "commitOid": new.sha, "pullRequestUrl": None}
        )

    @app.post("/api/{kind}/{ns}/{name}/tag/{rev}")
    async def create_tag(request: Request, kind: str, ns: str, name: str, rev: str) -> Response:
        if not authed(request):
            return _error(401, None, "Invalid credentials in Authorization header")
        found = get_commit(request, kind, ns, name, rev)
        if isinstance(found, JSONResponse):
            return found
        repo, target = found
        tag = (await request.json())["tag"]
        if tag in repo.tags or tag in repo.branches:
            return _error(409, None, f"Tag {tag} already exists")
        repo.tags[tag] = target.sha
        return JSONResponse({})

    @app.get("/api/{kind}/{ns}/{name}/refs")
    async def refs(request: Request, kind: str, ns: str, name: str) -> Response:
        repo = get_repo(request, kind, ns, name)
        if isinstance(repo, JSONResponse):
            return repo
        return JSONResponse(
            {
                "branches": [
                    {"name": b, "ref": f"refs/heads/{b}", "targetCommit": s} for b, s in repo.branches.items()
                ],
                "tags": [
                    {"name": t, "ref": f"refs/tags/{t}", "targetCommit": s} for t, s in repo.tags.items()
                ],
                "converts": [],
            }
        )

    def entries(commit: Commit, prefix: str, recursive: bool) -> list[dict] | None:
        """Tree entries under ``prefix`` ("" = root); None if no such folder."""
        base = prefix.strip("/") + "/" if prefix.strip("/") else ""
        files = {p: b for p, b in commit.files.items() if p.startswith(base)}
        if base and not files:
            return None
        out: dict[str, dict] = {}
        for path, blob in sorted(files.items()):
            rest = path[len(base) :]
            if "/" in rest and not recursive:
                d = base + rest.split("/", 1)[0]
                out.setdefault(d, _dir_entry(d))
                continue
            if recursive:
                parts = rest.split("/")[:-1]
                for i in range(len(parts)):
                    d = base + "/".join(parts[: i + 1])
                    out.setdefault(d, _dir_entry(d))
            out[path] = _file_entry(path, blob)
        return list(out.values())

    @app.get("/api/{kind}/{ns}/{name}/tree/{rev}")
    @app.get("/api/{kind}/{ns}/{name}/tree/{rev}/{path:path}")
    async def tree(request: Request, kind: str, ns: str, name: str, rev: str, path: str = "") -> Response:
        found = get_commit(request, kind, ns, name, rev)
        if isinstance(found, JSONResponse):
            return found
        recursive = request.query_params.get("recursive", "false").lower() == "true"
        listing = entries(found[1], path, recursive)
        if listing is None:
            return _error(404, "EntryNotFound", f"{path} does not exist on {rev}")
        return JSONResponse(listing)

    @app.post("/api/{kind}/{ns}/{name}/paths-info/{rev}")
    async def paths_info(request: Request, kind: str, ns: str, name: str, rev: str) -> Response:
        found = get_commit(request, kind, ns, name, rev)
        if isinstance(found, JSONResponse):
            return found
        commit = found[1]
        raw = (await request.body()).decode()
        paths = (
            json.loads(raw).get("paths", [])
            if raw.lstrip().startswith("{")
            else parse_qs(raw).get("paths", [])
        )
        out = []
        for p in paths:
            p = p.strip("/")
            if p in commit.files:
                out.append(_file_entry(p, commit.files[p]))
            elif any(f.startswith(p + "/") for f in commit.files):
                out.append(_dir_entry(p))
        return JSONResponse(out)

    async def resolve(request: Request, kind: str, ns: str, name: str, rev: str, path: str) -> Response:
        found = get_commit(request, kind, ns, name, rev)
        if isinstance(found, JSONResponse):
            return found
        commit = found[1]
        blob = commit.files.get(path)
        if blob is None:
            return _error(404, "EntryNotFound", f"{path} does not exist on {rev}")
        etag = blob.sha256 if blob.lfs else blob.oid
        headers = {"X-Repo-Commit": commit.sha, "ETag": f'"{etag}"', "Accept-Ranges": "bytes"}
        if blob.lfs:
            headers.update({"X-Linked-Etag": f'"{etag}"', "X-Linked-Size": str(len(blob.data))})
        data, status = blob.data, 200
        rng = request.headers.get("range", "")
        if rng.startswith("bytes="):
            start_s, _, end_s = rng[6:].partition("-")
            start = int(start_s) if start_s else max(0, len(data) - int(end_s))
            end = min(int(end_s), len(data) - 1) if start_s and end_s else len(data) - 1
            headers["Content-Range"] = f"bytes {start}-{end}/{len(data)}"
            data, status = data[start : end + 1], 206
        if request.method == "HEAD":
            headers["Content-Length"] = str(len(data))
            return Response(status_code=status, headers=headers)
        return Response(
            content=data, status_code=status, headers=headers, media_type="application/octet-stream"
        )

    @app.api_route("/datasets/{ns}/{name}/resolve/{rev}/{path:path}", methods=["GET", "HEAD"])
    async def resolve_dataset(request: Request, ns: str, name: str, rev: str, path: str) -> Response:
        return await resolve(request, "datasets", ns, name, rev, path)

    @app.api_route("/{ns}/{name}/resolve/{rev}/{path:path}", methods=["GET", "HEAD"])
    async def resolve_model(request: Request, ns: str, name: str, rev: str, path: str) -> Response:
        return await resolve(request, "models", ns, name, rev, path)

    @app.api_route("/{rest:path}", methods=["GET", "HEAD", "POST", "PUT", "DELETE", "PATCH"])
    async def unhandled(request: Request, rest: str) -> Response:
        state.unhandled.append((request.method, "/" + rest))
        return _error(404, None, f"not implemented by the stand-in: {request.method} /{rest}")

    return app


def _file_entry(path: str, blob: Blob) -> dict:
    entry: dict = {"type": "file", "oid": blob.oid, "size": len(blob.data), "path": path}
    if blob.lfs:
        entry["lfs"] = {"oid": blob.sha256, "size": len(blob.data), "pointerSize": 134}
    return entry


def _dir_entry(path: str) -> dict:
    return {"type": "directory", "oid": hashlib.sha1(path.encode()).hexdigest(), "size": 0, "path": path}
