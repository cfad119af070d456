/**
 * The viewer's browser side: charts drawn by uPlot from the JSON the server puts in `data-chart`, and the
 * live view. While the page is visible it asks for the log's head position twice a second; when it moves past
 * what the page shows, the page's `main` is fetched again and swapped in, so new events appear without a
 * reload, and what the reader typed or opened stays as it was.
 */
import type uPlotType from "uplot"
import { singleXRange } from "./scales.ts"

declare const uPlot: typeof uPlotType

interface Chart {
  readonly title: string
  readonly x: ReadonlyArray<number>
  readonly xKind: "time" | "index"
  readonly series: ReadonlyArray<{ readonly label: string; readonly values: ReadonlyArray<number | null> }>
  readonly steps?: boolean
  readonly yRange?: readonly [number, number]
}

const COLORS = ["#2563eb", "#16a34a", "#dc2626", "#9333ea", "#ea580c", "#0891b2"]

const drawCharts = (root: ParentNode) => {
  for (const element of root.querySelectorAll<HTMLElement>(".chart[data-chart]")) {
    if (element.dataset["drawn"] === "1") continue
    const chart = JSON.parse(element.dataset["chart"] ?? "{}") as Chart
    element.dataset["drawn"] = "1"
    if (chart.series.every((s) => s.values.every((v) => v === null))) {
      element.textContent = `${chart.title}: no data yet`
      continue
    }
    const width = Math.max(320, Math.min(900, element.clientWidth || 640))
    const single = singleXRange(chart.x, chart.xKind)
    const xRange = single === undefined ? {} : { range: (): [number, number] => single }
    new uPlot(
      {
        title: chart.title,
        width,
        height: 220,
        scales: {
          x: { time: chart.xKind === "time", ...xRange },
          ...(chart.yRange === undefined ? {} : { y: { range: [...chart.yRange] } })
        },
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

/**
 * What the reader has done in `current` that the server's copy does not hold, put on `next`: what they typed or
 * chose in a form (the search box while a hook runs), where the focus and the caret are, and which <details>
 * they opened.
 */
const keepReaderState = (current: HTMLElement, next: HTMLElement) => {
  const controls = (
    root: HTMLElement
  ) => [...root.querySelectorAll<HTMLInputElement | HTMLSelectElement>("input, select")]
  const counterparts = new Map(controls(next).map((c) => [c.name, c]))
  const focused = document.activeElement
  for (const control of controls(current)) {
    const counterpart = counterparts.get(control.name)
    if (control.name === "" || counterpart === undefined) continue
    counterpart.value = control.value
    if (control === focused) {
      counterpart.autofocus = false
      queueMicrotask(() => {
        counterpart.focus()
        if (control instanceof HTMLInputElement && counterpart instanceof HTMLInputElement) {
          counterpart.setSelectionRange(control.selectionStart, control.selectionEnd)
        }
      })
    }
  }
  const open = new Set(
    [...current.querySelectorAll("details[open]")].map((d) => d.parentElement?.textContent?.slice(0, 80))
  )
  for (const details of next.querySelectorAll("details")) {
    if (open.has(details.parentElement?.textContent?.slice(0, 80))) details.open = true
  }
}

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
    keepReaderState(current, next)
    current.replaceWith(next)
    drawCharts(next)
  } finally {
    refreshing = false
  }
}

const POLL_MS = 500

/**
 * Asks for the log's head while the page is visible. Short requests, not a stream held open: a browser keeps
 * six connections to a host, and a held stream per tab would leave a seventh tab nothing to load with.
 */
const live = () => {
  const badge = document.getElementById("live")
  const poll = async () => {
    if (document.hidden) return
    try {
      const response = await fetch("/head", { credentials: "same-origin" })
      if (!response.ok) throw new Error(String(response.status))
      badge?.classList.add("on")
      const { position } = (await response.json()) as { readonly position: number }
      if (position > shownHead()) await refresh()
    } catch {
      // The viewer stopped, or the file is being replaced: asked again at the next tick.
      badge?.classList.remove("on")
    }
  }
  const tick = () => void poll().finally(() => setTimeout(tick, POLL_MS))
  tick()
  document.addEventListener("visibilitychange", () => void poll())
}

document.addEventListener("DOMContentLoaded", () => {
  drawCharts(document)
  live()
})
