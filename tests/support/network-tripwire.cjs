/**
 * A network tripwire, preloaded into a Node process with
 *   node --require /abs/path/network-tripwire.cjs ...   or   NODE_OPTIONS='--require "/abs/path/network-tripwire.cjs"'
 *
 * Every attempt to use the network (TCP, UDP, TLS, DNS, HTTP(S), HTTP/2, fetch, WebSocket, EventSource) is
 * appended, BEFORE the call would proceed, as one JSON line to the file named by $RALPH_MEM_TRIPWIRE_LOG
 * ({ api, target, pid, argv, stack }); the call then throws (or rejects, for promise APIs)
 * Error("network disabled by the ralph-mem tripwire"), so nothing leaves the machine.
 *
 * Local IPC is not network: a connect to a Unix domain socket / named pipe (a `path` option, or a string
 * path instead of a port) goes through unrecorded. Child-process stdio pipes never call connect at all.
 *
 * If $RALPH_MEM_TRIPWIRE_PROCESSES names a file, each process that loads the tripwire appends a JSON line
 * ({ event: "loaded", pid, argv }) to it, and another ({ event: "exit", pid, code }) when it exits, so a test
 * can prove the tripwire really was in every process it cares about, and wait for detached ones to finish.
 */
"use strict"

const fs = require("node:fs")
const MESSAGE = "network disabled by the ralph-mem tripwire"
const INSTALLED = Symbol.for("ralph-mem.network-tripwire")

const appendLine = (file, record) => {
  if (!file) return
  try {
    fs.appendFileSync(file, JSON.stringify(record) + "\n")
  } catch {
    // The tripwire must never break the process it watches: a log that cannot be written is not a reason to crash.
  }
}

const shortStack = () =>
  (new Error().stack || "")
    .split("\n")
    .slice(1)
    .map((line) => line.trim())
    .filter((line) => !line.includes("network-tripwire.cjs"))
    .slice(0, 8)

/** The process's arguments, each cut short (an agent gets its whole prompt as an argument). */
const argv = () => process.argv.slice(1).map((arg) => (arg.length > 200 ? `${arg.slice(0, 200)}...` : arg))

const describeTarget = (value) => {
  if (value === undefined || value === null) return null
  if (typeof value === "string" || typeof value === "number" || typeof value === "boolean") return value
  if (value instanceof URL) return value.href
  if (typeof value === "object") {
    if (typeof value.url === "string") return value.url // a Request
    const picked = {}
    for (
      const key of [
        "protocol",
        "hostname",
        "host",
        "port",
        "path",
        "href",
        "origin",
        "authority",
        "localAddress",
        "type"
      ]
    ) {
      const field = value[key]
      if (typeof field === "string" || typeof field === "number") picked[key] = field
    }
    return Object.keys(picked).length > 0 ? picked : String(value)
  }
  return String(value)
}

/** Records one attempt, then returns the error the call fails with. */
const trip = (api, target) => {
  appendLine(process.env.RALPH_MEM_TRIPWIRE_LOG, {
    api,
    target: describeTarget(target),
    pid: process.pid,
    argv: argv(),
    stack: shortStack()
  })
  const error = new Error(`${MESSAGE} (${api})`)
  error.code = "ERR_RALPH_MEM_TRIPWIRE"
  return error
}

const replace = (owner, name, api, describe) => {
  if (!owner || typeof owner[name] !== "function") return
  const original = owner[name]
  const wrapped = function(...args) {
    const target = describe(args)
    if (target === IPC) return original.apply(this, args)
    throw trip(api, target)
  }
  Object.defineProperty(wrapped, "name", { value: original.name })
  owner[name] = wrapped
}

const replaceAsync = (owner, name, api) => {
  if (!owner || typeof owner[name] !== "function") return
  const original = owner[name]
  const wrapped = function(...args) {
    return Promise.reject(trip(api, args[0]))
  }
  Object.defineProperty(wrapped, "name", { value: original.name })
  owner[name] = wrapped
}

const IPC = Symbol("ipc")
const first = (args) => args[0]

/**
 * The target of net.connect / Socket#connect arguments, or IPC for a Unix socket / pipe. Node's own
 * net.connect hands Socket#connect an already-normalized array ([options, callback]).
 */
const socketTarget = (args) => {
  let head = args[0]
  if (Array.isArray(head)) head = head[0]
  if (typeof head === "string" && !/^\d+$/.test(head)) return IPC // connect(path[, cb])
  if (head !== null && typeof head === "object") {
    // As in Node's net: a `path` makes it a Unix socket / pipe, whatever else the options say.
    if (typeof head.path === "string" && head.path.length > 0) return IPC
    return { host: head.host, port: head.port }
  }
  const host = typeof args[1] === "string" ? args[1] : "localhost"
  return { host, port: head }
}

const install = () => {
  const net = require("node:net")
  const tls = require("node:tls")
  const dgram = require("node:dgram")
  const dns = require("node:dns")
  const http = require("node:http")
  const https = require("node:https")
  const http2 = require("node:http2")

  // TCP, and everything built on it (http, https, tls, http2, undici): the backstop is Socket#connect.
  replace(net.Socket.prototype, "connect", "net.Socket#connect", socketTarget)
  replace(net, "connect", "net.connect", socketTarget)
  replace(net, "createConnection", "net.createConnection", socketTarget)
  replace(tls, "connect", "tls.connect", socketTarget)

  // UDP.
  replace(dgram, "createSocket", "dgram.createSocket", first)
  for (const method of ["bind", "connect", "send"]) {
    replace(dgram.Socket.prototype, method, `dgram.Socket#${method}`, (args) => ({ port: args[0], host: args[1] }))
  }

  // DNS: the callback API, the promise API, and their Resolver classes.
  const isDnsQuery = (name) =>
    name === "lookup" || name === "lookupService" || name === "reverse" || name.startsWith("resolve")
  for (const name of Object.keys(dns)) if (isDnsQuery(name)) replace(dns, name, `dns.${name}`, first)
  if (dns.Resolver) {
    for (const name of Object.getOwnPropertyNames(dns.Resolver.prototype)) {
      if (isDnsQuery(name)) replace(dns.Resolver.prototype, name, `dns.Resolver#${name}`, first)
    }
  }
  const promises = dns.promises
  if (promises) {
    for (const name of Object.keys(promises)) if (isDnsQuery(name)) replaceAsync(promises, name, `dns.promises.${name}`)
    if (promises.Resolver) {
      for (const name of Object.getOwnPropertyNames(promises.Resolver.prototype)) {
        if (isDnsQuery(name)) replaceAsync(promises.Resolver.prototype, name, `dns.promises.Resolver#${name}`)
      }
    }
  }
  try {
    const dnsPromises = require("node:dns/promises")
    if (dnsPromises !== promises) {
      for (const name of Object.keys(dnsPromises)) {
        if (isDnsQuery(name)) replaceAsync(dnsPromises, name, `dns/promises.${name}`)
      }
    }
  } catch {
    // Older Node without dns/promises: nothing to patch.
  }

  // HTTP(S) and HTTP/2. A request over a Unix socket (socketPath) is IPC.
  const httpTarget = (args) => {
    const options = args.find((arg) => arg !== null && typeof arg === "object" && !(arg instanceof URL))
    if (options && typeof options.socketPath === "string") return IPC
    return args[0]
  }
  replace(http, "request", "http.request", httpTarget)
  replace(http, "get", "http.get", httpTarget)
  replace(https, "request", "https.request", httpTarget)
  replace(https, "get", "https.get", httpTarget)
  replace(http2, "connect", "http2.connect", first)

  // The web platform globals.
  replaceAsync(globalThis, "fetch", "fetch")
  for (const name of ["WebSocket", "EventSource"]) {
    if (typeof globalThis[name] !== "function") continue
    const api = name
    const Blocked = function(url) {
      throw trip(api, url)
    }
    Object.defineProperty(Blocked, "name", { value: name })
    globalThis[name] = Blocked
  }

  // ESM named imports of builtins (import { connect } from "node:net") see the patched functions too.
  try {
    require("node:module").syncBuiltinESMExports()
  } catch {
    // Not available: the CommonJS objects are patched, which is what default imports use.
  }
}

if (!globalThis[INSTALLED]) {
  globalThis[INSTALLED] = true
  install()
  const processes = process.env.RALPH_MEM_TRIPWIRE_PROCESSES
  if (processes) {
    appendLine(processes, { event: "loaded", pid: process.pid, argv: argv() })
    process.on("exit", (code) => appendLine(processes, { event: "exit", pid: process.pid, code }))
  }
}
