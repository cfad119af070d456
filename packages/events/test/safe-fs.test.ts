/** The one way ralph-mem writes under a memory folder: never through a link, never another user's file. */
import { execFileSync } from "node:child_process"
import {
  chmodSync,
  chownSync,
  closeSync,
  ftruncateSync,
  linkSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  statSync,
  symlinkSync,
  writeFileSync
} from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import {
  appendPrivateFile,
  createPrivateFile,
  ensureMemorySubfolder,
  inspectMemoryFolder,
  readLogTail,
  tightenFile,
  UnsafePath,
  writePrivateFile
} from "../src/index.ts"
import { tempFolder } from "./helpers.ts"

const isRoot = process.getuid?.() === 0

/** A user's file a planted link points at, and the memory folder holding the link. */
const planted = () => {
  const home = tempFolder()
  const target = join(home, ".bashrc")
  writeFileSync(target, "original\n")
  chmodSync(target, 0o644)
  const memory = join(tempFolder(), ".ralph-mem")
  mkdirSync(memory)
  return { home, target, memory }
}

const untouched = (target: string) => {
  expect(readFileSync(target, "utf8")).toBe("original\n")
  expect(statSync(target).mode & 0o777).toBe(0o644)
}

const thrown = (run: () => unknown): unknown => {
  try {
    run()
  } catch (error) {
    return error
  }
  throw new Error("expected a refusal")
}

describe("writing a file under the memory folder", () => {
  it.each([
    ["append", (path: string) => appendPrivateFile(path, "line\n")],
    ["replace", (path: string) => writePrivateFile(path, "x")],
    ["tighten", (path: string) => tightenFile(path)]
  ])("%s: a link is refused and its target left as it was", (_, write) => {
    const { target, memory } = planted()
    symlinkSync(target, join(memory, "hooks.log"))
    expect(thrown(() => write(join(memory, "hooks.log")))).toBeInstanceOf(UnsafePath)
    untouched(target)
  })

  it("create: a link is something already there (O_EXCL), so nothing is written", () => {
    const { target, memory } = planted()
    symlinkSync(target, join(memory, ".gitignore"))
    expect(createPrivateFile(join(memory, ".gitignore"), "*\n")).toBe(false)
    untouched(target)
  })

  it("a FIFO where the log belongs fails at once instead of waiting for a reader", () => {
    const { memory } = planted()
    const log = join(memory, "hooks.log")
    execFileSync("mkfifo", [log])
    expect(() => appendPrivateFile(log, "x")).toThrow()
    expect(inspectMemoryFolder(join(memory, "memory.db")).problem).toMatchObject({ problem: "wrong_type" })
  })

  it("a hard link (another name for a file elsewhere) is refused", () => {
    const { target, memory } = planted()
    linkSync(target, join(memory, "hooks.log"))
    expect(thrown(() => appendPrivateFile(join(memory, "hooks.log"), "x"))).toMatchObject({ problem: "hard_link" })
    untouched(target)
  })

  it.skipIf(!isRoot)("another user's file is refused", () => {
    const { memory } = planted()
    const log = join(memory, "hooks.log")
    writeFileSync(log, "theirs\n")
    chownSync(log, 65534, 65534)
    expect(thrown(() => appendPrivateFile(log, "x"))).toMatchObject({ problem: "foreign_owner" })
    expect(readFileSync(log, "utf8")).toBe("theirs\n")
  })

  it("new files are 0600; tightening takes group and other access away and never adds the owner's", () => {
    const { memory } = planted()
    const file = join(memory, "a")
    expect(createPrivateFile(file, "x")).toBe(true)
    expect(createPrivateFile(file, "y")).toBe(false)
    expect(statSync(file).mode & 0o777).toBe(0o600)
    chmodSync(file, 0o444)
    tightenFile(file)
    expect(statSync(file).mode & 0o777).toBe(0o400)
  })
})

describe("folders under the memory folder", () => {
  it("a link on the way stops the walk before anything is created through it", () => {
    const { home, memory } = planted()
    symlinkSync(home, join(memory, "snapshots"))
    const walk = () => ensureMemorySubfolder(join(memory, "snapshots", "loop", "start"))
    expect(thrown(walk)).toMatchObject({ problem: "link" })
    expect(readdirSync(home)).toEqual([".bashrc"])
  })

  it("creates each step 0700, and tightens one that exists", () => {
    const { memory } = planted()
    mkdirSync(join(memory, "export"), { mode: 0o755 })
    chmodSync(join(memory, "export"), 0o755)
    ensureMemorySubfolder(join(memory, "export", "deep"))
    const mode = (path: string) => statSync(path).mode & 0o777
    expect([mode(join(memory, "export")), mode(join(memory, "export", "deep"))]).toEqual([0o700, 0o700])
  })
})

describe("inspecting a memory folder", () => {
  it("refuses a .ralph-mem folder that is a link, or holds one where ralph-mem keeps its files", () => {
    const { home, memory } = planted()
    // An editor's lock link beside the config is no name ralph-mem uses.
    symlinkSync("user@host.1234", join(memory, ".#config.yaml"))
    expect(inspectMemoryFolder(join(memory, "memory.db")).problem).toBeUndefined()
    symlinkSync(join(home, "nowhere"), join(memory, "plans"))
    expect(inspectMemoryFolder(join(memory, "memory.db")).problem).toMatchObject({ problem: "link" })
    const linked = join(tempFolder(), ".ralph-mem")
    symlinkSync(home, linked)
    expect(inspectMemoryFolder(join(linked, "memory.db")).problem).toMatchObject({ problem: "link" })
  })

  it("accepts a folder the user chose that is a link of theirs (RALPH_MEM_DB), checking the files in it", () => {
    const real = tempFolder()
    const chosen = join(tempFolder(), "memory")
    symlinkSync(real, chosen)
    expect(inspectMemoryFolder(join(chosen, "mine.db")).problem).toBeUndefined()
    symlinkSync("/etc/hostname", join(real, "mine.db-wal"))
    expect(inspectMemoryFolder(join(chosen, "mine.db")).problem).toMatchObject({ problem: "link" })
  })
})

describe("reading the end of a log", () => {
  it("reads only whole lines of the end of a large log, and nothing from a FIFO, a device or a link", () => {
    const folder = tempFolder()
    const log = join(folder, "hooks.log")
    // A sparse gigabyte of zeros, then two lines: read whole, it took a gigabyte and then failed the reader.
    const fd = openSync(log, "w")
    ftruncateSync(fd, 1024 ** 3)
    closeSync(fd)
    appendPrivateFile(log, "\nfirst\nsecond\n")
    expect(readLogTail(log, 10)).toBe("second\n")
    expect(readLogTail(log, 1024)).toBe("first\nsecond\n")
    const small = join(folder, "small.log")
    writeFileSync(small, "only\n")
    expect(readLogTail(small, 1024)).toBe("only\n")
    const fifo = join(folder, "fifo.log")
    execFileSync("mkfifo", [fifo])
    expect(readLogTail(fifo, 1024)).toBeUndefined()
    const link = join(folder, "link.log")
    symlinkSync(small, link)
    expect(readLogTail(link, 1024)).toBeUndefined()
    expect(readLogTail("/dev/zero", 1024)).toBeUndefined()
    expect(readLogTail(join(folder, "missing.log"), 1024)).toBeUndefined()
  })
})
