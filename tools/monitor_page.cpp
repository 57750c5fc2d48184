// The monitor's live page: see monitor_page.h. Each rendition gets a chart
// of the last minutes (per-second mean score, window means, the threshold)
// drawn on a canvas; the inputs' state, the alignment and the alarms are a
// table. Every second the script reads /api/state and redraws.
#include "monitor_page.h"

namespace ssim2 {
namespace monitor {

const std::string& PageHtml() {
  static const std::string page = R"HTML(<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>ssim2 monitor</title>
<style>
body { font: 14px system-ui, sans-serif; margin: 1em 2em; background: #fafafa; color: #222; }
h1 { font-size: 1.3em; margin: 0 0 .3em; }
table { border-collapse: collapse; margin: .5em 0 1em; }
th, td { padding: .2em .8em; border-bottom: 1px solid #ddd; text-align: left; }
.up { color: #176b2c; font-weight: bold; } .down { color: #b3261e; font-weight: bold; }
.alarm { background: #fde7e5; }
.chart { display: inline-block; margin: 0 1em 1em 0; padding: .5em; background: #fff;
         border: 1px solid #ddd; }
.chart h2 { font-size: 1em; margin: 0 0 .3em; }
#status { color: #666; }
</style>
</head>
<body>
<h1>ssim2 monitor</h1>
<div id="status">connecting…</div>
<h2>Inputs</h2>
<table id="inputs"><thead><tr><th>input</th><th>state</th><th>last frame</th>
<th>frames</th><th>down</th><th>last error</th></tr></thead><tbody></tbody></table>
<h2>Renditions</h2>
<table id="renditions"><thead><tr><th>rendition</th><th>score</th><th>window mean</th>
<th>window min</th><th>window p5</th><th>scored</th><th>skipped</th><th>paused</th>
<th>offset</th><th>locked</th><th>alarm</th></tr></thead><tbody></tbody></table>
<div id="charts"></div>
<script>
"use strict";
const SPAN = 300;  // seconds shown
function fmt(v, d) { return v === null || v === undefined ? "–" : Number(v).toFixed(d); }
function cell(row, text, cls) {
  const td = document.createElement("td");
  td.textContent = text;
  if (cls) td.className = cls;
  row.appendChild(td);
}
function fill(id, rows) {
  const body = document.querySelector("#" + id + " tbody");
  body.replaceChildren(...rows);
}
function chartFor(name) {
  let box = document.getElementById("chart-" + name);
  if (!box) {
    box = document.createElement("div");
    box.className = "chart";
    box.id = "chart-" + name;
    const h = document.createElement("h2");
    h.textContent = name;
    const c = document.createElement("canvas");
    c.width = 480; c.height = 200;
    box.append(h, c);
    document.getElementById("charts").appendChild(box);
  }
  return box.querySelector("canvas");
}
function draw(canvas, r, threshold) {
  const g = canvas.getContext("2d");
  const W = canvas.width, H = canvas.height, L = 36, B = 18, T = 8;
  g.clearRect(0, 0, W, H);
  const all = r.history.map(p => p[1]).concat(r.window_history.map(p => p[1]));
  if (threshold !== null) all.push(threshold);
  let lo = Math.min(0, ...all.filter(v => v !== null)), hi = 100;
  const x = t => L + (W - L) * (1 + t / SPAN);
  const y = v => T + (H - B - T) * (1 - (v - lo) / (hi - lo));
  g.strokeStyle = "#ccc"; g.fillStyle = "#666"; g.font = "11px sans-serif";
  for (let v = Math.ceil(lo / 20) * 20; v <= hi; v += 20) {
    g.beginPath(); g.moveTo(L, y(v)); g.lineTo(W, y(v)); g.stroke();
    g.fillText(String(v), 2, y(v) + 4);
  }
  g.fillText("-" + SPAN + " s", L, H - 4); g.fillText("now", W - 24, H - 4);
  const line = (points, color, width) => {
    g.strokeStyle = color; g.lineWidth = width; g.beginPath();
    let started = false;
    for (const [t, v] of points) {
      if (t < -SPAN || v === null) continue;
      if (started) g.lineTo(x(t), y(v)); else g.moveTo(x(t), y(v));
      started = true;
    }
    g.stroke(); g.lineWidth = 1;
  };
  if (threshold !== null) line([[-SPAN, threshold], [0, threshold]], "#b3261e", 1);
  line(r.history, "#1f5fbf", 1.5);
  line(r.window_history, "#e08a00", 2.5);
  const shown = r.history.filter(p => p[0] >= -SPAN).length;
  canvas.dataset.points = String(shown);
  canvas.dataset.windowPoints = String(r.window_history.filter(p => p[0] >= -SPAN).length);
}
async function update() {
  let s;
  try {
    const response = await fetch("api/state", {cache: "no-store"});
    s = await response.json();
  } catch (e) {
    document.getElementById("status").textContent = "monitor unreachable: " + e;
    return;
  }
  document.getElementById("status").textContent =
    "backend " + s.info.backend + (s.info.device ? " (" + s.info.device + ")" : "") +
    ", version " + s.info.version +
    (s.threshold !== null ? ", threshold " + s.threshold : "") +
    (s.reference_delay ? ", reference delay " + fmt(s.reference_delay.seconds, 1) + " s (" +
     fmt(s.reference_delay.bytes / 1e6, 1) + " MB compressed)" : "") +
    " — updated " + new Date().toLocaleTimeString();
  fill("inputs", s.inputs.map(i => {
    const row = document.createElement("tr");
    cell(row, i.name); cell(row, i.state, i.up ? "up" : "down");
    cell(row, i.last_frame_age_seconds === null ? "–" : fmt(i.last_frame_age_seconds, 1) + " s ago");
    cell(row, String(i.frames)); cell(row, String(i.down)); cell(row, i.last_error);
    return row;
  }));
  fill("renditions", s.renditions.map(r => {
    const row = document.createElement("tr");
    if (r.alarm) row.className = "alarm";
    const w = r.window || {};
    cell(row, r.name); cell(row, fmt(r.score, 2)); cell(row, fmt(w.mean, 2));
    cell(row, fmt(w.min, 2)); cell(row, fmt(w.p5, 2)); cell(row, String(r.frames.scored));
    cell(row, String(r.frames.skipped)); cell(row, String(r.frames.paused));
    cell(row, r.offset === null ? "–" : String(r.offset)); cell(row, r.locked ? "yes" : "no");
    cell(row, r.alarm ? "ALARM (" + r.alarms + ")" : String(r.alarms), r.alarm ? "down" : "");
    return row;
  }));
  for (const r of s.renditions) draw(chartFor(r.name), r, s.threshold);
}
update();
setInterval(update, 1000);
</script>
</body>
</html>
)HTML";
  return page;
}

}  // namespace monitor
}  // namespace ssim2
