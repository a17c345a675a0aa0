"""The review page: one HTML document, its style and script inline (no CDN, works offline)."""

from __future__ import annotations

PAGE = """<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>corpusbench review</title>
<style>
  :root { --ink:#1d2330; --mute:#5b6475; --line:#d9dde5; --bg:#f6f7f9; --accent:#2f5fb3; }
  * { box-sizing: border-box; }
  body { margin:0; font:16px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif;
         color:var(--ink); background:var(--bg); }
  main { max-width:760px; margin:0 auto; padding:20px 20px 40px; }
  header { display:flex; justify-content:space-between; align-items:baseline; gap:12px; }
  h1 { font-size:18px; margin:0; }
  .meta { color:var(--mute); font-size:13px; }
  .bar { height:8px; background:var(--line); border-radius:4px; overflow:hidden; margin:10px 0 4px; }
  .bar > div { height:100%; background:var(--accent); width:0; transition:width .2s; }
  .card { background:#fff; border:1px solid var(--line); border-radius:10px; padding:18px 20px;
          margin-top:14px; }
  .subtask { font-weight:600; }
  .claim { color:var(--mute); margin:2px 0 12px; }
  .sent { display:flex; gap:12px; align-items:flex-start; width:100%; text-align:left; font:inherit;
          font-size:19px; background:#fff; border:2px solid var(--line); border-radius:8px;
          padding:12px 14px; margin:8px 0; cursor:pointer; color:var(--ink); }
  .sent .k { flex:none; font:600 13px/26px system-ui, sans-serif; color:var(--mute); width:22px; }
  .sent.picked { border-color:var(--accent); background:#eef3fc; }
  .help { color:var(--mute); font-size:13px; margin:4px 0 10px; }
  .labels { display:flex; gap:8px; flex-wrap:wrap; margin-top:6px; }
  .labels button, .tools button { font:inherit; font-size:15px; padding:8px 14px; border-radius:7px;
          border:1px solid var(--line); background:#fff; cursor:pointer; }
  button.valid { border-color:#2e7d4f; color:#1f5e3a; }
  button.marginal { border-color:#b58105; color:#7a5700; }
  button.invalid { border-color:#b3261e; color:#8c1d18; }
  kbd { font:12px ui-monospace, monospace; border:1px solid var(--line); border-bottom-width:2px;
        border-radius:4px; padding:0 4px; background:#fafbfc; }
  textarea { width:100%; font:inherit; font-size:14px; border:1px solid var(--line); border-radius:7px;
             padding:6px 8px; margin-top:10px; resize:vertical; min-height:38px; }
  .tools { display:flex; justify-content:space-between; align-items:center; gap:12px; margin-top:10px; }
  .tools button { white-space:nowrap; flex:none; }
  .last { font-size:14px; color:var(--mute); }
  .last b { color:var(--ink); }
  .good { color:#1f5e3a; } .bad { color:#8c1d18; }
  .done { text-align:center; padding:30px 10px; }
  code { font-size:13px; background:#eef0f4; padding:1px 4px; border-radius:4px; }
  #err { color:#8c1d18; font-size:14px; min-height:1em; }
</style>
</head>
<body>
<main>
  <header>
    <h1>corpusbench review</h1>
    <span class="meta" id="who"></span>
  </header>
  <div class="bar"><div id="progress"></div></div>
  <div class="meta" id="count"></div>
  <section class="card" id="item" hidden>
    <div><span class="subtask" id="subtask"></span> &middot;
      <span class="meta">the benchmark's claim:</span></div>
    <div class="claim" id="claim"></div>
    <button class="sent" id="s0" data-side="0"><span class="k">A</span><span class="t"></span></button>
    <button class="sent" id="s1" data-side="1"><span class="k">B</span><span class="t"></span></button>
    <div class="help">Is this a valid minimal pair for the claim: one sentence fine, the other wrong because
      of the swap? Optionally click the sentence you think is the correct one (<kbd>A</kbd> /
      <kbd>B</kbd>) first.</div>
    <div class="labels">
      <button class="valid" data-label="valid">valid <kbd>1</kbd></button>
      <button class="marginal" data-label="marginal">marginal <kbd>2</kbd></button>
      <button class="invalid" data-label="invalid">invalid <kbd>3</kbd></button>
      <button data-label="skip">skip <kbd>S</kbd></button>
    </div>
    <textarea id="note" placeholder="note (optional; N to focus, Esc to leave)"></textarea>
  </section>
  <section class="card done" id="finished" hidden>
    <h2>All items labelled</h2>
    <p>Run <code>corpusbench review report PATH</code> for the valid share and the judge's agreement.</p>
  </section>
  <div class="tools">
    <div class="last" id="last"></div>
    <button id="undo">undo <kbd>U</kbd></button>
  </div>
  <div id="err"></div>
</main>
<script>
"use strict";
let state = null, picked = null, busy = false;
const $ = (id) => document.getElementById(id);

async function call(path, body) {
  const opts = body === undefined ? {} :
    {method: "POST", headers: {"Content-Type": "application/json"}, body: JSON.stringify(body)};
  const res = await fetch(path, opts);
  const data = await res.json();
  if (!res.ok) throw new Error(data.error || res.statusText);
  return data;
}

function show(s) {
  state = s; picked = null;
  $("who").textContent = s.reviewer + " \\u00b7 " + s.source;
  $("progress").style.width = (s.total ? 100 * s.done / s.total : 0) + "%";
  const c = s.counts;
  const parts = ["valid", "marginal", "invalid", "skip"].filter(k => c[k]).map(k => c[k] + " " + k);
  $("count").textContent = s.done + " of " + s.total + " labelled" +
    (parts.length ? " (" + parts.join(", ") + ")" : "");
  $("item").hidden = !s.item; $("finished").hidden = !!s.item;
  if (s.item) {
    $("subtask").textContent = s.item.title;
    $("claim").textContent = s.item.claim;
    for (const i of [0, 1]) {
      $("s" + i).querySelector(".t").textContent = s.item.sentences[i];
      $("s" + i).classList.remove("picked");
    }
    $("note").value = "";
  }
  const l = s.last;
  if (l) {
    const g = l.sentences[l.good], pick = l.picked ? " (you picked the " + l.picked + " one)" : "";
    $("last").innerHTML = "";
    const b = document.createElement("b"); b.textContent = l.label;
    const sp = document.createElement("span");
    sp.className = "good"; sp.textContent = "\\u201c" + g + "\\u201d";
    $("last").append("Previous: ", b, pick + ". The benchmark's correct sentence was ",
                     "AB"[l.good], ": ", sp);
  } else {
    $("last").textContent = "";
  }
  document.body.dataset.fingerprint = s.item ? s.item.fingerprint : "";
  document.body.dataset.done = String(s.done);
}

function pick(side) {
  picked = picked === side ? null : side;
  for (const i of [0, 1]) $("s" + i).classList.toggle("picked", picked === i);
}

async function act(fn) {
  if (busy) return;
  busy = true; $("err").textContent = "";
  try { show(await fn()); } catch (e) { $("err").textContent = e.message; }
  finally { busy = false; }
}

function label(name) {
  if (!state || !state.item) return;
  const body = {fingerprint: state.item.fingerprint, label: name, note: $("note").value, picked: picked};
  act(() => call("/api/label", body));
}

document.querySelectorAll("[data-label]").forEach(
  b => b.addEventListener("click", () => label(b.dataset.label)));
document.querySelectorAll(".sent").forEach(
  b => b.addEventListener("click", () => pick(Number(b.dataset.side))));
$("undo").addEventListener("click", () => act(() => call("/api/undo", {})));
document.addEventListener("keydown", (e) => {
  if (e.target === $("note")) { if (e.key === "Escape") $("note").blur(); return; }
  if (e.ctrlKey || e.metaKey || e.altKey) return;
  const k = e.key.toLowerCase();
  const keys = {"1": "valid", "v": "valid", "2": "marginal", "m": "marginal",
                "3": "invalid", "i": "invalid", "s": "skip"};
  if (keys[k]) { e.preventDefault(); label(keys[k]); }
  else if (k === "a") pick(0);
  else if (k === "b") pick(1);
  else if (k === "u") act(() => call("/api/undo", {}));
  else if (k === "n") { e.preventDefault(); $("note").focus(); }
});
act(() => call("/api/state"));
</script>
</body>
</html>
"""
