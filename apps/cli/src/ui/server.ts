/**
 * `ralph-mem ui`: a local, read-only web viewer over one memory database.
 *
 * Who may look: it listens on 127.0.0.1 only, answers only requests whose Host is that address (or
 * localhost) at its port (a page elsewhere cannot rebind a name to it), and only with the random token made
 * at start, from the URL it prints (then kept in a same-site, HTTP-only cookie so links need not carry it).
 * Anything else gets 403. A browser keeps cookies by host, not by port, so the cookie's name carries the port:
 * two viewers side by side keep their own. Nothing is loaded from the network: the scripts and styles are the
 * package's own (dist/ui), and the Content-Security-Policy allows nothing else.
 *
 * What it reads: each request opens the database read-only and closes it, so a restore, replay, forget or
 * compaction made by another process is simply read anew. Open pages ask for the log's head position
 * (`/head`) and fetch their content again when it moved: short requests, so no tab holds one of the
 * browser's few connections to the viewer.
 */
import { serve, type ServerType } from "@hono/node-server"
import {
  catalog,
  failureLogPath,
  makeEventLog,
  openReadOnly,
  readLogTail,
  type SqliteDatabase
} from "@ralph-mem/events"
import { loadLoop } from "@ralph-mem/loop"
import {
  findSession,
  headPosition,
  hookStats,
  listBackups,
  sessionDetails,
  sessionLog,
  storageByTable,
  successMetrics
} from "@ralph-mem/projections"
import { fullDetails, searchIndex, timelineOf } from "@ralph-mem/projections/search"
import { type Context, Hono } from "hono"
import { getCookie, setCookie } from "hono/cookie"
import { randomBytes, timingSafeEqual } from "node:crypto"
import { existsSync, readFileSync, statSync } from "node:fs"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"
import * as pages from "./pages.ts"

type Html = ReturnType<typeof pages.main>

export interface ViewerOptions {
  readonly databasePath: string
  readonly project: string
  readonly port: number
  /** Where the viewer's scripts and styles are (dist/ui). */
  readonly assets: string
}

export interface Viewer {
  readonly url: string
  readonly port: number
  readonly token: string
  readonly close: () => Promise<void>
}

/** dist/ui beside the CLI bundle (the entry or one of its chunks). */
export const findAssets = (): string | undefined => {
  const here = dirname(fileURLToPath(import.meta.url))
  return [join(here, "ui"), join(here, "..", "ui"), join(here, "..", "..", "..", "..", "dist", "ui")].find((dir) =>
    existsSync(join(dir, "app.js"))
  )
}

/** The access cookie's name: one per port, as browsers send a host's cookies to every port of it. */
const cookieName = (port: number) => `ralph_mem_ui_${port}`

/** The Host headers the viewer answers: its address or localhost, at its port (which port 80 leaves out). */
export const allowedHosts = (port: number): ReadonlySet<string> =>
  new Set([`127.0.0.1:${port}`, `localhost:${port}`, ...(port === 80 ? ["127.0.0.1", "localhost"] : [])])
const CSP = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; " +
  "base-uri 'none'; form-action 'self'; frame-ancestors 'none'"

const ASSET_TYPES: ReadonlyMap<string, string> = new Map([
  ["app.js", "text/javascript; charset=utf-8"],
  ["uPlot.iife.min.js", "text/javascript; charset=utf-8"],
  ["uPlot.min.css", "text/css; charset=utf-8"],
  ["style.css", "text/css; charset=utf-8"]
])

const sameToken = (given: string | undefined, token: string) => {
  if (given === undefined) return false
  const a = Buffer.from(given)
  const b = Buffer.from(token)
  return a.length === b.length && timingSafeEqual(a, b)
}

/** The last lines of hooks.log (reasons only: the log never holds payloads). */
const recentFailures = (databasePath: string, lines = 30): Array<string> => {
  const text = readLogTail(failureLogPath(databasePath), 256 * 1024) ?? ""
  return text.trimEnd().split("\n").filter((line) => line !== "").slice(-lines).reverse()
}

const sizeOf = (path: string) => statSync(path, { throwIfNoEntry: false })?.size ?? 0

const layerOf = (value: string | undefined): 1 | 2 | 3 => (value === "2" ? 2 : value === "3" ? 3 : 1)

export const startViewer = (options: ViewerOptions): Promise<Viewer> => {
  const token = randomBytes(24).toString("base64url")
  let port = options.port
  const app = new Hono()

  /** A request's database: opened read-only for it alone. */
  const withDb = <A>(use: (db: SqliteDatabase) => A): A => {
    const db = openReadOnly(options.databasePath)
    try {
      return use(db)
    } finally {
      db.close()
    }
  }
  const head = () => withDb(headPosition)

  app.use("*", async (c, next) => {
    c.header("Content-Security-Policy", CSP)
    c.header("X-Content-Type-Options", "nosniff")
    c.header("Referrer-Policy", "no-referrer")
    c.header("Cache-Control", "no-store")
    if (!allowedHosts(port).has(c.req.header("host") ?? "")) return c.text("Forbidden: unknown host", 403)
    const fromUrl = c.req.query("token")
    if (sameToken(fromUrl, token)) {
      setCookie(c, cookieName(port), token, { httpOnly: true, sameSite: "Strict", path: "/" })
    } else if (!sameToken(getCookie(c, cookieName(port)), token)) {
      return c.text("Forbidden: open the URL ralph-mem ui printed (it carries the access token)", 403)
    }
    if (c.req.method !== "GET" && c.req.method !== "HEAD") return c.text("The viewer is read-only", 405)
    await next()
  })

  /** A page, whole or (for the live view's refresh) its `main` only. */
  const page = (title: string, path: string, body: () => Html) => (c: Context) => {
    const position = head()
    const content = body()
    const fragment = c.req.header("x-ralph-fragment") === "1"
    return c.html(
      (fragment ? pages.main(title, content, position) : pages.layout(title, path, content, position)).toString()
    )
  }

  // The metrics read every injection of 30 days and what followed it: computed again only when the log moved
  // (or the day changed), not on every live refresh of the dashboard.
  let metrics: { readonly key: string; readonly value: ReturnType<typeof successMetrics> } | undefined
  const currentMetrics = () =>
    withDb((db) => {
      const key = `${headPosition(db)}@${new Date().toISOString().slice(0, 10)}`
      if (metrics?.key !== key) metrics = { key, value: successMetrics(db, Date.now() - 30 * 86_400_000) }
      return metrics.value
    })
  app.get("/", (c) => page("Dashboard", "/", () => pages.dashboard(currentMetrics()))(c))
  app.get(
    "/sessions",
    (c) =>
      page(
        "Sessions",
        "/sessions",
        () => withDb((db) => pages.sessionsPage(db, options.project, pages.pageNumber(c.req.query("page"))))
      )(c)
  )
  app.get("/sessions/:id", (c) => {
    const id = c.req.param("id")
    const pageNumber = pages.pageNumber(c.req.query("page"))
    return page(`Session ${id.slice(0, 12)}`, "/sessions", () =>
      withDb((db) => {
        const session = findSession(db, id)
        if (session === undefined) return pages.notFound(`No session ${id}.`)
        // One more than a page: where the next page starts, so this one shows what came before it.
        const perPage = pages.OBSERVATIONS_PER_PAGE
        const observations = sessionDetails(db, id, perPage + 1, pageNumber * perPage)
        return pages.sessionPage(session, pageNumber, observations, sessionLog(db, id), options.project)
      }))(c)
  })
  app.get("/search", (c) => {
    const query = (c.req.query("q") ?? "").slice(0, 1000)
    const layer = layerOf(c.req.query("layer"))
    return page("Search", "/search", () =>
      withDb((db) => {
        if (query.trim() === "") return pages.searchPage(query, layer, undefined, options.project)
        const { hits } = searchIndex(db, { query, project: options.project, limit: 10 })
        if (layer === 1) return pages.searchPage(query, 1, { layer: 1, hits }, options.project)
        if (layer === 2) return pages.searchPage(query, 2, { layer: 2, entries: timelineOf(db, hits) }, options.project)
        const ids = hits.filter((h) => h.kind === "observation").map((h) => h.id)
        return pages.searchPage(query, 3, { layer: 3, details: fullDetails(db, ids) }, options.project)
      }))(c)
  })
  app.get("/loops", (c) => page("Ralph loops", "/loops", () => withDb((db) => pages.loopsPage(db)))(c))
  app.get("/loops/:id", (c) => {
    const id = c.req.param("id")
    return page(`Loop ${id.slice(-8)}`, "/loops", () =>
      withDb((db) => {
        // A loop is the fold of its stream, read through a log on this read-only connection.
        const { state } = loadLoop({ log: makeEventLog(db, catalog) }, id)
        return state === undefined ? pages.notFound(`No loop ${id}.`) : pages.loopPage(state)
      }))(c)
  })
  app.get(
    "/working",
    (c) =>
      page("Decisions, beliefs, tasks", "/working", () => withDb((db) => pages.workingPage(db, options.project)))(c)
  )
  app.get("/health", (c) =>
    page("Health", "/health", () =>
      withDb((db) =>
        pages.healthPage({
          hooks: hookStats(db),
          recentFailures: recentFailures(options.databasePath),
          backups: listBackups(options.databasePath),
          databaseBytes: sizeOf(options.databasePath),
          walBytes: sizeOf(`${options.databasePath}-wal`),
          storage: storageByTable(db),
          project: options.project
        })
      ))(c))

  // Live: the log's head position, which open pages ask for. While the file is being replaced (a restore), a
  // 500: the page asks again at its next tick.
  app.get("/head", (c) => c.json({ position: head() }))

  app.get("/assets/:name", (c) => {
    const name = c.req.param("name")
    const type = ASSET_TYPES.get(name)
    if (type === undefined) return c.text("Not found", 404)
    return c.body(readFileSync(join(options.assets, name)), 200, { "Content-Type": type })
  })

  app.onError((error, c) => {
    process.stderr.write(`ralph-mem ui: ${c.req.path}: ${error.message}\n`)
    return c.text(`The viewer could not read the memory: ${error.message}`, 500)
  })

  return new Promise((resolve, reject) => {
    let server: ServerType
    try {
      server = serve({ fetch: app.fetch, port: options.port, hostname: "127.0.0.1" }, (info) => {
        port = info.port
        resolve({
          url: `http://127.0.0.1:${port}/?token=${token}`,
          port,
          token,
          close: () =>
            new Promise<void>((done) => {
              const closing = server as ServerType & { closeAllConnections?: () => void }
              closing.closeAllConnections?.()
              server.close(() => done())
            })
        })
      })
      server.on("error", reject)
    } catch (error) {
      reject(error)
    }
  })
}
