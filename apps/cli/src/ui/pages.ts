/**
 * The viewer's pages, rendered on the server as HTML (hono/html escapes every value). Charts are drawn in
 * the browser by uPlot from the JSON a `data-chart` attribute carries; no script runs inline (the page's
 * Content-Security-Policy allows scripts from the viewer's own assets only).
 */
import type { SqliteDatabase } from "@ralph-mem/events"
import type { Loop } from "@ralph-mem/loop"
import {
  listBeliefs,
  listDecisions,
  listLoopRuns,
  listSessions,
  listTasks,
  type Metric,
  relativePath,
  relativeText,
  sessionCount,
  type SessionLogEntry,
  type SessionRow,
  type SuccessMetrics
} from "@ralph-mem/projections"
import type { IndexHit, ObservationDetail } from "@ralph-mem/projections/search"
import { html, raw } from "hono/html"

type Html = ReturnType<typeof html>

export interface Chart {
  readonly title: string
  readonly x: ReadonlyArray<number>
  /** `time`: x values are epoch seconds; `index`: plain numbers (iterations). */
  readonly xKind: "time" | "index"
  readonly series: ReadonlyArray<{ readonly label: string; readonly values: ReadonlyArray<number | null> }>
  /** Draw points only, as steps between 0 and 1 (a check's pass/fail). */
  readonly steps?: boolean
  /** The y axis's span, when the values have one (shares, pass/fail); else it follows the values. */
  readonly yRange?: readonly [number, number]
}

const time = (
  ms: number | null | undefined
) => (ms === null || ms === undefined ? "" : new Date(ms).toISOString().replace("T", " ").slice(0, 19) + "Z")

const short = (text: string | null | undefined, max = 160) => {
  const flat = (text ?? "").replace(/\s+/g, " ").trim()
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat
}

/** A table's header row; the names are fixed text of ours, so they go in as markup. */
const headRow = (...names: ReadonlyArray<string>) =>
  raw(`<thead><tr>${names.map((name) => `<th>${name}</th>`).join("")}</tr></thead>`)

/** Paths as the project sees them: the home folder and the project root stay out of what is shown. */
const shownPath = (project: string, path: string | null | undefined) =>
  path === null || path === undefined || path === "" ? "" : relativePath(path, { project, home: process.env["HOME"] })

/** Text as the project sees it: paths relative to the project, the home folder as `~` (display-paths.ts). */
const shownText = (project: string, text: string | null | undefined) =>
  relativeText(text ?? "", { project, home: process.env["HOME"] })

const chart = (c: Chart) => html`<div class="chart" data-chart="${JSON.stringify(c)}"></div>`

const percent = (v: number | null) => (v === null ? "—" : `${(v * 100).toFixed(1)}%`)

const NAV = [
  ["/", "Dashboard"],
  ["/sessions", "Sessions"],
  ["/search", "Search"],
  ["/loops", "Ralph loops"],
  ["/working", "Decisions, beliefs, tasks"],
  ["/health", "Health"]
] as const

/** The whole page; `fragment` requests (live updates) get `main` only. */
export const layout = (title: string, path: string, body: Html, head: number): Html =>
  html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>${title} · ralph-mem</title>
<link rel="stylesheet" href="/assets/uPlot.min.css">
<link rel="stylesheet" href="/assets/style.css">
<script src="/assets/uPlot.iife.min.js" defer></script>
<script src="/assets/app.js" defer></script>
</head>
<body>
<header><strong>ralph-mem</strong><nav>${
    NAV.map(([href, label]) => html`<a href="${href}" class="${href === path ? "current" : ""}">${label}</a>`)
  }</nav><span class="live" id="live" title="new events appear without a reload">live</span></header>
${main(title, body, head)}
</body>
</html>`

export const main = (title: string, body: Html, head: number): Html =>
  html`<main id="main" data-head="${head}"><h1>${title}</h1>${body}</main>`

// ---- dashboard -------------------------------------------------------------------------------------------

const metricRow = (label: string, metric: Metric, format: (v: number | null) => string) =>
  html`<tr><th>${label}</th><td class="${metric.met === null ? "" : metric.met ? "ok" : "bad"}">${
    format(metric.value)
  }</td>
<td>${metric.numerator} / ${metric.denominator}</td><td>${metric.target}</td>
<td class="definition">${metric.definition}</td></tr>`

export const dashboard = (metrics: SuccessMetrics): Html => {
  const days = metrics.daily.map((d) => Date.parse(`${d.day}T00:00:00Z`) / 1000)
  return html`<p>Success metrics since ${time(metrics.since)} (<code>ralph-mem stats</code> prints the same).</p>
<table class="metrics">${headRow("metric", "value", "counted", "target", "definition")}<tbody>
${metricRow("Injection use", metrics.injectionUse, percent)}
${metricRow("Hook success", metrics.hookSuccess, percent)}
${metricRow("Loop success", metrics.loopSuccess, percent)}
${metricRow("Mean iterations of a successful loop", metrics.meanIterations, (v) => (v === null ? "—" : v.toFixed(2)))}
</tbody></table>
<div class="charts">
${
    chart({
      title: "Injection use, hook success and loop success per day",
      x: days,
      xKind: "time",
      yRange: [0, 1],
      series: [
        { label: "injection use", values: metrics.daily.map((d) => d.injectionUse) },
        { label: "hook success", values: metrics.daily.map((d) => d.hookSuccess) },
        { label: "loop success", values: metrics.daily.map((d) => d.loopSuccess) }
      ]
    })
  }
${
    chart({
      title: "Mean iterations of a successful loop per day",
      x: days,
      xKind: "time",
      series: [
        { label: "mean iterations", values: metrics.daily.map((d) => d.meanIterations) }
      ]
    })
  }
</div>`
}

// ---- sessions ----------------------------------------------------------------------------------------------

const sessionLink = (
  id: string | null
) => (id === null ? "" : html`<a href="/sessions/${encodeURIComponent(id)}">${id.slice(0, 12)}</a>`)

/** Sessions in a page of the list, and observations in a page of a session. */
export const SESSIONS_PER_PAGE = 200
export const OBSERVATIONS_PER_PAGE = 500

/** A page number from the URL: digits only (up to six), else 0, the first page. */
export const pageNumber = (value: string | undefined): number =>
  value !== undefined && /^[0-9]{1,6}$/.test(value) ? Number(value) : 0

/**
 * Where this page of a list stands: which of how many are shown (counted from 1), with links to the pages
 * before and after, so nothing past a page is out of reach or silently left out.
 */
const pager = (
  list: { readonly path: string; readonly noun: string; readonly perPage: number; readonly total: number },
  page: number,
  shown: number,
  labels: readonly [before: string, after: string]
) => {
  const first = page * list.perPage
  const last = Math.max(0, Math.ceil(list.total / list.perPage) - 1)
  const link = (to: number, text: string) =>
    html`<a href="${to === 0 ? list.path : `${list.path}?page=${to}`}">${text}</a>`
  return html`<p class="pager">${
    shown === 0
      ? `No ${list.noun.toLowerCase()} on this page; ${list.total} in all.`
      : `${list.noun} ${first + 1}-${first + shown} of ${list.total}`
  }${page > 0 ? html` · ${link(Math.min(page - 1, last), labels[0])}` : ""}${
    first + shown < list.total ? html` · ${link(page + 1, labels[1])}` : ""
  }</p>`
}

export const sessionsPage = (db: SqliteDatabase, project: string, page: number): Html => {
  const rows: ReadonlyArray<SessionRow> = listSessions(db, {
    limit: SESSIONS_PER_PAGE,
    offset: page * SESSIONS_PER_PAGE
  })
  const total = sessionCount(db)
  if (total === 0) return html`<p class="empty">No session recorded yet.</p>`
  const list = { path: "/sessions", noun: "Sessions", perPage: SESSIONS_PER_PAGE, total }
  return html`${pager(list, page, rows.length, ["← newer", "older →"])}<table class="list">${
    headRow("session", "started", "project", "prompts", "observations", "errors", "summary")
  }<tbody>
${
    rows.map((s) =>
      html`<tr><td>${sessionLink(s.sessionId)}</td><td>${time(s.startedAt)}${
        s.endedAt === null ? html` <span class="tag">open</span>` : ""
      }</td>
<td>${shownPath(project, s.projectPath)}</td><td>${s.prompts}</td><td>${s.observations}</td><td class="${
        s.errors > 0 ? "bad" : ""
      }">${s.errors}</td>
<td>${short(shownText(project, s.summary), 200)}</td></tr>`
    )
  }
</tbody></table>`
}

const observationKind = (type: string) => html`<span class="kind ${type}">${type}</span>`

/**
 * One session's page: its observations from `page * OBSERVATIONS_PER_PAGE` on (`observations` holds one more
 * than a page when there are more), and the prompts, replies and injections between them: a page holds what
 * happened from its first observation to the next page's first, so the pages together leave nothing out.
 */
export const sessionPage = (
  session: SessionRow,
  page: number,
  observations: ReadonlyArray<ObservationDetail>,
  log: ReadonlyArray<SessionLogEntry>,
  project: string
): Html => {
  const shown = observations.slice(0, OBSERVATIONS_PER_PAGE)
  const from = page === 0 ? -Infinity : shown[0]?.position ?? Infinity
  const until = observations[OBSERVATIONS_PER_PAGE]?.position ?? Infinity
  const entries = [
    ...shown.map((o) => ({
      position: o.position,
      render: html`<li class="observation">${observationKind(o.type)} <time>${time(o.createdAt)}</time>
<b>${
        shownText(project, [o.toolName, o.inputSummary].filter(Boolean).join(" "))
      }</b> <code class="id">@${o.position}</code>
${o.errorMessage ? html`<div class="error">${shownText(project, short(o.errorMessage, 400))}</div>` : ""}
${o.files.length > 0 ? html`<div class="files">${o.files.map((f) => shownPath(project, f)).join(", ")}</div>` : ""}
<details><summary>output</summary><pre>${shownText(project, o.content)}</pre></details></li>`
    })),
    ...log.filter((e) => e.position >= from && e.position < until).map((e) => ({
      position: e.position,
      render: e.kind === "prompt"
        ? html`<li class="prompt"><span class="kind prompt">prompt</span> <time>${time(e.at)}</time><pre>${
          shownText(project, e.prompt)
        }</pre></li>`
        : e.kind === "reply"
        ? html`<li class="reply"><span class="kind reply">Claude</span> <time>${time(e.at)}</time><pre>${
          shownText(project, e.message)
        }</pre></li>`
        : html`<li class="injection"><span class="kind injection">told Claude</span> <time>${time(e.at)}</time>
<b>${e.hookEvent}</b>: ${e.reason}, ~${e.tokens} tokens from ${e.sources.length} memories
<details><summary>the text Claude was told</summary><pre>${
          shownText(project, e.text)
        }</pre><div class="sources">sources: ${
          e.sources.map((s) => html`<code class="id">${s}</code> `)
        }</div></details></li>`
    }))
  ].sort((a, b) => a.position - b.position)
  return html`<dl class="fields"><dt>session</dt><dd><code>${session.sessionId}</code></dd>
<dt>project</dt><dd>${shownPath(project, session.projectPath)}</dd>
<dt>started</dt><dd>${time(session.startedAt)} (${session.source ?? "?"})</dd>
<dt>ended</dt><dd>${session.endedAt === null ? "open" : `${time(session.endedAt)} (${session.endReason ?? ""})`}</dd>
<dt>summary</dt><dd><pre>${session.summary === null ? "none yet" : shownText(project, session.summary)}</pre></dd></dl>
${
    session.observations > OBSERVATIONS_PER_PAGE || page > 0
      ? pager(
        {
          path: `/sessions/${encodeURIComponent(session.sessionId)}`,
          noun: "Observations",
          perPage: OBSERVATIONS_PER_PAGE,
          total: session.observations
        },
        page,
        shown.length,
        ["← earlier", "later →"]
      )
      : ""
  }<ol class="timeline">${entries.map((e) => e.render)}</ol>`
}

// ---- search --------------------------------------------------------------------------------------------------

/**
 * A hit's score against the best hit's, as a percentage: scores are bm25-based and mean nothing alone (a word
 * most rows hold scores in millionths), while how close a hit comes to the first one is what a reader compares.
 */
const relevance = (score: number, best: number) => `${best > 0 ? Math.round((100 * score) / best) : 100}%`

const hitLine = (hit: IndexHit, best: number, project: string) =>
  html`${observationKind(hit.type)} <time>${time(hit.createdAt)}</time> ${
    shownText(project, hit.title)
  } <span class="muted">~${hit.tokens} tokens, relevance ${relevance(hit.score, best)}</span>
${hit.kind === "observation" ? html`<code class="id">${hit.id}</code>` : ""} ${sessionLink(hit.sessionId)}`

const detail = (o: ObservationDetail, project: string) =>
  html`<div class="detail">${observationKind(o.type)} <time>${time(o.createdAt)}</time> <b>${
    shownText(project, [o.toolName, o.inputSummary].filter(Boolean).join(" "))
  }</b> <code class="id">${o.id}</code>
${o.errorMessage ? html`<div class="error">${shownText(project, o.errorMessage)}</div>` : ""}
${o.files.length > 0 ? html`<div class="files">${o.files.map((f) => shownPath(project, f)).join(", ")}</div>` : ""}
<pre>${shownText(project, o.content)}</pre></div>`

export const searchPage = (
  query: string,
  layer: 1 | 2 | 3,
  result:
    | { readonly layer: 1; readonly hits: ReadonlyArray<IndexHit> }
    | {
      readonly layer: 2
      readonly entries: ReadonlyArray<
        {
          readonly hit: IndexHit
          readonly before: ReadonlyArray<ObservationDetail>
          readonly after: ReadonlyArray<ObservationDetail>
        }
      >
    }
    | { readonly layer: 3; readonly details: ReadonlyArray<ObservationDetail> }
    | undefined,
  project: string
): Html => {
  const form = html`<form method="get" action="/search" class="search"><input type="search" name="q" value="${query}"
placeholder="what do you remember about..." autofocus>
<select name="layer">${
    ([1, 2, 3] as const).map((l) =>
      html`<option value="${l}" ${l === layer ? raw("selected") : ""}>${
        ["", "1: index", "2: timeline", "3: full"][l]
      }</option>`
    )
  }</select><button type="submit">Search</button></form>`
  if (result === undefined) return form
  const empty = html`<p class="empty">Nothing found for <q>${query}</q>.</p>`
  switch (result.layer) {
    case 1:
      return html`${form}${
        result.hits.length === 0
          ? empty
          : html`<ol class="hits">${
            result.hits.map((h) => html`<li>${hitLine(h, result.hits[0]!.score, project)}</li>`)
          }</ol>`
      }`
    case 2:
      return html`${form}${
        result.entries.length === 0 ?
          empty :
          html`<ol class="hits">${
            result.entries.map((e) =>
              html`<li class="group"><div class="hit">${hitLine(e.hit, result.entries[0]!.hit.score, project)}</div>
<ul class="neighbours">${e.before.map((o) => html`<li class="before">before: ${detail(o, project)}</li>`)}${
                e.after.map((o) => html`<li class="after">after: ${detail(o, project)}</li>`)
              }</ul></li>`
            )
          }</ol>`
      }`
    case 3:
      return html`${form}${
        result.details.length === 0
          ? empty
          : html`<ol class="hits">${result.details.map((d) => html`<li>${detail(d, project)}</li>`)}</ol>`
      }`
  }
}

// ---- loops --------------------------------------------------------------------------------------------------

export const loopsPage = (db: SqliteDatabase): Html => {
  const loops = listLoopRuns(db, 200)
  if (loops.length === 0) {
    return html`<p class="empty">No Ralph loop yet. Start one with ${
      raw("<code>/ralph-mem:ralph start &lt;goal&gt;</code>")
    }.</p>`
  }
  return html`<table class="list">${headRow("loop", "goal", "mode", "status", "iterations", "started", "ended")}<tbody>
${
    loops.map((l) =>
      html`<tr><td><a href="/loops/${encodeURIComponent(l.loopId)}">${l.loopId.slice(-8)}</a></td><td>${
        short(l.goal, 120)
      }</td><td>${l.mode}, ${l.driver}</td>
<td class="${l.status === "success" ? "ok" : l.status === "running" ? "" : "bad"}">${l.status}${
        l.endReason ? `: ${short(l.endReason, 80)}` : ""
      }</td>
<td>${l.iterations} / ${l.maxIterations}</td><td>${time(l.startedAt)}</td><td>${time(l.endedAt)}</td></tr>`
    )
  }</tbody></table>`
}

const tokens = (usage: Loop["iterations"][number]["usage"]) =>
  usage === undefined
    ? "not reported"
    : `${usage.inputTokens + usage.outputTokens + usage.cacheReadTokens + usage.cacheCreationTokens}${
      usage.costUsd === undefined ? "" : ` ($${usage.costUsd.toFixed(4)})`
    }`

export const loopPage = (loop: Loop): Html => {
  const kinds = [...new Set(loop.iterations.flatMap((it) => (it.results ?? []).map((r) => r.kind)))]
  const x = loop.iterations.map((it) => it.iteration)
  const snapshots = [
    ...(loop.startSnapshotRef === undefined ? [] : [{ iteration: 0, ref: loop.startSnapshotRef }]),
    ...loop.iterations.flatMap((
      it
    ) => (it.snapshotRef === undefined ? [] : [{ iteration: it.iteration, ref: it.snapshotRef }]))
  ]
  return html`<dl class="fields"><dt>goal</dt><dd>${loop.goal}</dd><dt>status</dt><dd>${loop.status}${
    loop.endReason ? `: ${loop.endReason}` : ""
  }</dd>
<dt>driver</dt><dd>${loop.driver}${loop.sessionId ? html`, session ${sessionLink(loop.sessionId)}` : ""}</dd>
<dt>started</dt><dd>${
    time(loop.startedAt)
  }</dd><dt>iterations</dt><dd>${loop.iterations.length} of at most ${loop.config.maxIterations}</dd></dl>
<div class="charts">
${
    chart({
      title: "Checks per iteration (1 = passed, 0 = failed)",
      x,
      xKind: "index",
      steps: true,
      yRange: [0, 1],
      series: kinds.map((kind) => ({
        label: kind,
        values: loop.iterations.map((it) => {
          const result = it.results?.find((r) => r.kind === kind)
          return result === undefined ? null : result.passed ? 1 : 0
        })
      }))
    })
  }
${
    chart({
      title: "Seconds per iteration",
      x,
      xKind: "index",
      series: [{
        label: "duration (s)",
        values: loop.iterations.map((
          it
        ) => (it.completedAt === undefined ? null : (it.completedAt - it.startedAt) / 1000))
      }]
    })
  }
</div>
<table class="list">${headRow("iteration", "checks", "files changed", "duration", "tokens")}<tbody>
${
    loop.iterations.map((it) =>
      html`<tr><td>${it.iteration}${it.storyId ? ` (${it.storyId})` : ""}</td>
<td>${
        (it.results ?? []).map((r) =>
          html`<span class="${r.passed ? "ok" : "bad"}">${r.kind} ${r.passed ? "passed" : "failed"}</span> `
        )
      }</td>
<td>${(it.filesChanged ?? []).join(", ")}</td><td>${
        it.completedAt === undefined ? "running" : `${Math.round((it.completedAt - it.startedAt) / 1000)} s`
      }</td>
<td>${tokens(it.usage)}</td></tr>`
    )
  }</tbody></table>
<h2>Snapshots</h2>
${
    snapshots.length === 0 ?
      html`<p class="empty">None.</p>` :
      html`<table class="list">${headRow("after iteration", "snapshot", "roll back with")}<tbody>
${
        snapshots.map((s) =>
          html`<tr><td>${s.iteration === 0 ? "0 (before the loop)" : s.iteration}</td><td><code>${s.ref}</code></td>
<td><code>ralph-mem ralph stop --loop ${loop.loopId} --rollback --to ${s.iteration}</code></td></tr>`
        )
      }</tbody></table>`
  }`
}

// ---- working memory --------------------------------------------------------------------------------------------

export const workingPage = (db: SqliteDatabase, project: string): Html => {
  const decisions = listDecisions(db, { project })
  const beliefs = listBeliefs(db, project)
  const tasks = listTasks(db, project)
  return html`<h2>Decisions</h2>
${
    decisions.length === 0 ?
      html`<p class="empty">None.</p>` :
      html`<ul class="cards">${
        decisions.map((d) =>
          html`<li><b>${d.decision}</b> <span class="tag">${d.impact}</span><div>why: ${d.rationale}</div>
${
            d.alternatives.length > 0
              ? html`<div>rejected: ${
                d.alternatives.map((a) =>
                  a.rejectedBecause === undefined ? a.option : `${a.option}: ${a.rejectedBecause}`
                ).join("; ")
              }</div>`
              : ""
          }<code class="id">${d.id}</code></li>`
        )
      }</ul>`
  }
<h2>Beliefs</h2>
${
    beliefs.length === 0
      ? html`<p class="empty">None.</p>`
      : html`<dl class="fields">${beliefs.map((b) => html`<dt>${b.key}</dt><dd>${b.value}</dd>`)}</dl>`
  }
<h2>Tasks</h2>
${
    tasks.length === 0 ?
      html`<p class="empty">None.</p>` :
      html`<ul class="cards">${
        tasks.map((t) =>
          html`<li><b>${t.title}</b> <span class="tag">${t.status}</span> <code>${t.taskId}</code>
<ol>${t.steps.map((s) => html`<li class="${s.status}">${s.text} <span class="tag">${s.status}</span></li>`)}</ol>
${t.handoff ? html`<div>handoff: ${t.handoff.note}</div>` : ""}</li>`
        )
      }</ul>`
  }`
}

// ---- health -------------------------------------------------------------------------------------------------------

export const healthPage = (input: {
  readonly hooks: { readonly invocations: number; readonly failures: number; readonly successRate: number }
  readonly recentFailures: ReadonlyArray<string>
  readonly backups: ReadonlyArray<{ readonly path: string; readonly takenAt: number; readonly sizeBytes?: number }>
  readonly databaseBytes: number
  readonly walBytes: number
  readonly storage: ReadonlyArray<{ readonly name: string; readonly bytes: number }>
  readonly project: string
}): Html =>
  html`<dl class="fields"><dt>hook success</dt><dd class="${input.hooks.successRate >= 0.99 ? "ok" : "bad"}">${
    percent(input.hooks.successRate)
  }
(${input.hooks.invocations - input.hooks.failures} of ${input.hooks.invocations} invocations)</dd>
<dt>database</dt><dd>${input.databaseBytes} bytes, WAL ${input.walBytes} bytes</dd></dl>
<h2>Recent hook failures (hooks.log)</h2>
${
    input.recentFailures.length === 0
      ? html`<p class="empty">None.</p>`
      : html`<pre class="log">${input.recentFailures.join("\n")}</pre>`
  }
<h2>Backups</h2>
${
    input.backups.length === 0 ?
      html`<p class="empty">None yet (one is taken after a session ends, at most once an hour).</p>` :
      html`<ul>${input.backups.map((b) => html`<li>${time(b.takenAt)}: ${shownPath(input.project, b.path)}</li>`)}</ul>`
  }
<h2>What takes the space</h2>
<table class="list"><thead><tr><th>table or index</th><th>bytes</th></tr></thead><tbody>
${input.storage.map((s) => html`<tr><td>${s.name}</td><td>${s.bytes}</td></tr>`)}</tbody></table>`

export const notFound = (what: string): Html => html`<p class="empty">${what}</p>`
