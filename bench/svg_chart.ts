/**
 * A tiny SVG line chart: one or more series over a shared x axis (log or
 * linear), a y axis from zero, a legend. No dependencies; the output is a
 * self-contained SVG document.
 *
 * @module
 */

export interface Series {
  name: string;
  points: readonly (readonly [x: number, y: number])[];
}

export interface ChartOptions {
  title: string;
  xLabel: string;
  yLabel: string;
  series: readonly Series[];
  /** Log-scale x axis (the scale curves span decades). */
  logX?: boolean;
  width?: number;
  height?: number;
}

const COLORS = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e"];
const PAD = { left: 70, right: 20, top: 40, bottom: 55 };

export function lineChart(options: ChartOptions): string {
  const width = options.width ?? 640;
  const height = options.height ?? 360;
  const all = options.series.flatMap((s) => s.points);
  const xs = all.map((p) => p[0]);
  const ys = all.map((p) => p[1]).filter(Number.isFinite);
  const xMin = Math.min(...xs);
  const xMax = Math.max(...xs);
  const yMax = niceCeil(Math.max(...ys, 0) * 1.1 || 1);
  const fx = options.logX
    ? (x: number) => span(Math.log10(x), Math.log10(xMin), Math.log10(xMax))
    : (x: number) => span(x, xMin, xMax);
  const plotW = width - PAD.left - PAD.right;
  const plotH = height - PAD.top - PAD.bottom;
  const px = (x: number) => PAD.left + fx(x) * plotW;
  const py = (y: number) => PAD.top + plotH - (y / yMax) * plotH;

  const parts: string[] = [];
  parts.push(
    `<rect width="${width}" height="${height}" fill="#fff"/>`,
    text(width / 2, 22, options.title, { anchor: "middle", size: 15, weight: "bold" }),
  );
  for (const y of ticks(yMax)) {
    parts.push(
      `<line x1="${PAD.left}" x2="${width - PAD.right}" y1="${py(y)}" y2="${
        py(y)
      }" stroke="#e5e5e5"/>`,
      text(PAD.left - 6, py(y) + 4, formatTick(y), { anchor: "end" }),
    );
  }
  let lastLabel = Infinity;
  for (const x of [...new Set(xs)].sort((a, b) => b - a)) {
    parts.push(
      `<line x1="${px(x)}" x2="${px(x)}" y1="${PAD.top + plotH}" y2="${
        PAD.top + plotH + 5
      }" stroke="#333"/>`,
    );
    // Largest first; a label too close to the one on its right is left out.
    if (lastLabel - px(x) < 36) continue;
    parts.push(text(px(x), PAD.top + plotH + 18, formatTick(x), { anchor: "middle" }));
    lastLabel = px(x);
  }
  parts.push(
    `<line x1="${PAD.left}" x2="${PAD.left}" y1="${PAD.top}" y2="${
      PAD.top + plotH
    }" stroke="#333"/>`,
    `<line x1="${PAD.left}" x2="${width - PAD.right}" y1="${PAD.top + plotH}" y2="${
      PAD.top + plotH
    }" stroke="#333"/>`,
    text(PAD.left + plotW / 2, height - 12, options.xLabel, { anchor: "middle" }),
    text(16, PAD.top + plotH / 2, options.yLabel, {
      anchor: "middle",
      transform: `rotate(-90 16 ${PAD.top + plotH / 2})`,
    }),
  );
  options.series.forEach((s, i) => {
    const color = COLORS[i % COLORS.length]!;
    const pts = s.points.filter((p) => Number.isFinite(p[1]));
    parts.push(
      `<polyline fill="none" stroke="${color}" stroke-width="2" points="${
        pts.map(([x, y]) => `${round(px(x))},${round(py(y))}`).join(" ")
      }"/>`,
      ...pts.map(([x, y]) =>
        `<circle cx="${round(px(x))}" cy="${round(py(y))}" r="3.5" fill="${color}"/>`
      ),
      `<rect x="${PAD.left + 10}" y="${
        PAD.top + 6 + i * 18
      }" width="12" height="3" fill="${color}"/>`,
      text(PAD.left + 28, PAD.top + 11 + i * 18, s.name, {}),
    );
  });
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="sans-serif" font-size="12">\n${
    parts.join("\n")
  }\n</svg>\n`;
}

function span(v: number, lo: number, hi: number): number {
  return hi === lo ? 0.5 : (v - lo) / (hi - lo);
}

function round(v: number): number {
  return Math.round(v * 10) / 10;
}

/** The smallest 1, 2 or 5 × 10^k at or above `v`. */
function niceCeil(v: number): number {
  const p = 10 ** Math.floor(Math.log10(v));
  for (const m of [1, 2, 5, 10]) if (m * p >= v) return m * p;
  return 10 * p;
}

function ticks(max: number): number[] {
  const step = niceCeil(max / 5);
  const out: number[] = [];
  for (let y = 0; y <= max + step / 1000; y += step) out.push(y);
  return out;
}

function formatTick(v: number): string {
  if (v >= 1000) return v.toLocaleString("en-US", { maximumFractionDigits: 0 });
  return String(Number(v.toPrecision(3)));
}

function text(
  x: number,
  y: number,
  body: string,
  o: { anchor?: string; size?: number; weight?: string; transform?: string },
): string {
  const attrs = [
    `x="${round(x)}"`,
    `y="${round(y)}"`,
    o.anchor ? `text-anchor="${o.anchor}"` : "",
    o.size ? `font-size="${o.size}"` : "",
    o.weight ? `font-weight="${o.weight}"` : "",
    o.transform ? `transform="${o.transform}"` : "",
  ].filter(Boolean).join(" ");
  return `<text ${attrs}>${escapeXml(body)}</text>`;
}

function escapeXml(s: string): string {
  return s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}
