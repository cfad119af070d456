/**
 * The viewer's browser side: charts drawn by uPlot from the JSON the server puts in `data-chart`, and the
 * live view. The server sends the log's head position as server-sent events; when it moves past what the
 * page shows, the page's `main` is fetched again and swapped in, so new events appear without a reload.
 */
import type uPlotType from "uplot"

declare const uPlot: typeof uPlotType

interface Chart {
  readonly title: string
  readonly x: ReadonlyArray<number>
  readonly xKind: "time" | "index"
  readonly series: ReadonlyArray<{ readonly label: string; readonly values: ReadonlyArray<number | null> }>
  readonly steps?: boolean
}

const COLORS = ["#2563eb", "#16a34a", "#dc2626", "#9333ea", "#ea580c", "#0891b2"]

const drawCharts = (root: ParentNode) => {
  for (const element of root.querySelectorAll<HTMLElement>(".chart[data-chart]")) {
    if (element.dataset["drawn"] === "1") continue
    const chart = JSON.parse(element.dataset["chart"] ?? "{}") as Chart
    element.dataset["drawn"] = "1"
    if (chart.x.length === 0) {
      element.textContent = `${chart.title}: no data yet`
      continue
    }
    const width = Math.max(320, Math.min(900, element.clientWidth || 640))
    new uPlot(
      {
        title: chart.title,
        width,
        height: 220,
        scales: { x: { time: chart.xKind === "time" } },
        // Iterations are whole numbers: no tick between two of them.
        axes: [chart.xKind === "index" ? { incrs: [1, 2, 5, 10, 20, 50, 100] } : {}, {}],
        series: [
          { label: chart.xKind === "time" ? "day" : "iteration" },
          ...chart.series.map((s, i) => ({
            label: s.label,
            stroke: COLORS[i % COLORS.length]!,
            width: 2,
            points: { show: true },
            ...(chart.steps === true ? { paths: uPlot.paths.stepped!({ align: 1 }) } : {})
          }))
        ]
      },
      [chart.x as Array<number>, ...chart.series.map((s) => s.values as Array<number | null>)],
      element
    )
  }
}

const shownHead = () => Number(document.getElementById("main")?.dataset["head"] ?? "0")

let refreshing = false
const refresh = async () => {
  if (refreshing) return
  refreshing = true
  try {
    const response = await fetch(location.href, { headers: { "x-ralph-fragment": "1" }, credentials: "same-origin" })
    if (!response.ok) return
    const next = new DOMParser().parseFromString(await response.text(), "text/html").getElementById("main")
    const current = document.getElementById("main")
    if (next === null || current === null) return
    // Keep what the reader opened: <details> that were open stay open.
    const open = new Set(
      [...current.querySelectorAll("details[open]")].map((d) => d.parentElement?.textContent?.slice(0, 80))
    )
    for (const details of next.querySelectorAll("details")) {
      if (open.has(details.parentElement?.textContent?.slice(0, 80))) details.open = true
    }
    current.replaceWith(next)
    drawCharts(next)
  } finally {
    refreshing = false
  }
}

const live = () => {
  const badge = document.getElementById("live")
  const events = new EventSource("/events")
  events.addEventListener("position", (event) => {
    badge?.classList.add("on")
    if (Number((event as MessageEvent<string>).data) > shownHead()) void refresh()
  })
  events.onerror = () => badge?.classList.remove("on")
}

document.addEventListener("DOMContentLoaded", () => {
  drawCharts(document)
  live()
})
