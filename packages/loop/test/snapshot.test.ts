/**
 * Git snapshots: a rollback removes every file the loop created, whatever its name.
 *
 * File-copy snapshots (projects outside git): private modes, nothing the privacy rules would mask, links
 * kept as links, and a rollback that restores the rest and leaves the masked files as they are.
 */
import { execFileSync } from "node:child_process"
import {
  chmodSync,
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  symlinkSync,
  writeFileSync
} from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { writeFigures } from "../../../tests/support/figures.ts"
import { restoreSnapshot, takeSnapshot, workingTreeMatches } from "../src/snapshot.ts"
import { tempProject } from "./criteria/helpers.ts"

const TOKEN = `ghp_${"a1B2".repeat(9)}`
const SECRETS = [TOKEN, "hunter2-the-db-password", "the private plan"]

const project = () => {
  const root = tempProject({
    "src/app.ts": "export const answer = 42\n",
    "run.sh": "#!/bin/sh\necho hi\n",
    ".env": "DB_PASSWORD=hunter2-the-db-password\n",
    ".env.local": "FEATURE=1\n",
    "notes.md": "Ideas\n<private>the private plan</private>\n",
    "config/deploy.js": `module.exports = { token: "${TOKEN}" }\n`
  })
  chmodSync(join(root, "run.sh"), 0o755)
  // Binary (a NUL early on): not text the filter reads, so copied as it is.
  writeFileSync(join(root, "logo.bin"), Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x00, 0x01, 0x02]))
  symlinkSync("/etc/hostname", join(root, "outside-link"))
  return root
}

/** Every folder and file below `root`, never following a link. */
const walk = (root: string): Array<{ readonly path: string; readonly folder: boolean; readonly mode: number }> =>
  readdirSync(root).flatMap((name) => {
    const path = join(root, name)
    const stats = lstatSync(path)
    const here = { path, folder: stats.isDirectory(), mode: stats.mode & 0o777 }
    return stats.isDirectory() ? [here, ...walk(path)] : [here]
  })

/**
 * Empty folders the user has (`logs`, `keep/empty/deeper`, one named like a file) when the snapshot is taken; the loop
 * writes into some of them and makes folders of its own with files in them; the rollback removes what it emptied
 * (`new`, `src/generated`), and keeps the user's, emptied or not.
 */
const emptiedByTheLoop = (root: string, snapshot: () => string) => {
  const userFolders = ["logs", "keep/empty/deeper", "idle", "looks.txt"]
  for (const folder of userFolders) mkdirSync(join(root, folder), { recursive: true })
  const ref = snapshot()
  writeFileSync(join(root, "logs", "run.log"), "made by the loop\n")
  mkdirSync(join(root, "keep", "empty", "deeper", "x"), { recursive: true })
  writeFileSync(join(root, "keep", "empty", "deeper", "x", "y.txt"), "made by the loop\n")
  mkdirSync(join(root, "new", "deep"), { recursive: true })
  writeFileSync(join(root, "new", "deep", "file.ts"), "made by the loop\n")
  mkdirSync(join(root, "src", "generated"))
  writeFileSync(join(root, "src", "generated", "out.ts"), "made by the loop\n")
  restoreSnapshot(root, ref)
  for (const folder of ["new", "src/generated", "keep/empty/deeper/x"]) {
    expect(existsSync(join(root, folder))).toBe(false)
  }
  for (const folder of userFolders) expect(readdirSync(join(root, folder))).toEqual([])
  expect(readFileSync(join(root, "src", "app.ts"), "utf8")).toBe("export const answer = 42\n")
  expect(workingTreeMatches(root, ref)).toBe(true)
}

describe("a file-copy snapshot", () => {
  it("is 0700 folders and 0600 files under .ralph-mem, and holds nothing the privacy rules would mask", () => {
    const root = project()
    const ref = takeSnapshot(root, "loop-1", "start")
    expect(ref).toBe("files:.ralph-mem/snapshots/loop-1/start")
    const memory = join(root, ".ralph-mem")
    const entries = walk(memory)
    expect(entries.filter((e) => e.folder && e.mode !== 0o700)).toEqual([])
    expect(entries.filter((e) => !e.folder && e.mode !== 0o600)).toEqual([])
    const copied = walk(join(memory, "snapshots", "loop-1", "start", "files")).filter((e) => !e.folder)
      .map((e) => e.path)
    expect(copied.map((path) => path.split("/files/")[1]).sort()).toEqual(["logo.bin", "run.sh", "src/app.ts"])
    for (const entry of entries.filter((e) => !e.folder)) {
      for (const secret of SECRETS) expect(readFileSync(entry.path, "utf8")).not.toContain(secret)
    }
    writeFigures("fs", { "snapshot files left out by the privacy rules": 4 })
  })

  it("rolls back the files it holds (with their modes and links) and leaves the masked ones as they are now", () => {
    const root = project()
    const ref = takeSnapshot(root, "loop-1", "start")
    writeFileSync(join(root, "src/app.ts"), "broken\n")
    rmSync(join(root, "run.sh"))
    rmSync(join(root, "outside-link"))
    rmSync(join(root, "logo.bin"))
    writeFileSync(join(root, ".env"), "DB_PASSWORD=rotated-since\n")
    writeFileSync(join(root, "src/new.ts"), "made after the snapshot\n")
    restoreSnapshot(root, ref)
    expect(readFileSync(join(root, "src/app.ts"), "utf8")).toBe("export const answer = 42\n")
    expect(lstatSync(join(root, "run.sh")).mode & 0o777).toBe(0o755)
    expect(readlinkSync(join(root, "outside-link"))).toBe("/etc/hostname")
    expect([...readFileSync(join(root, "logo.bin"))]).toEqual([0x89, 0x50, 0x4e, 0x47, 0x00, 0x01, 0x02])
    expect(readFileSync(join(root, ".env"), "utf8")).toBe("DB_PASSWORD=rotated-since\n")
    expect(readFileSync(join(root, "notes.md"), "utf8")).toContain("<private>")
    expect(existsSync(join(root, "src/new.ts"))).toBe(false)
  })

  it("tells whether the working tree still holds what it holds, the masked files aside", () => {
    const root = project()
    const ref = takeSnapshot(root, "loop-1", "end")
    expect(workingTreeMatches(root, ref)).toBe(true)
    writeFileSync(join(root, ".env"), "DB_PASSWORD=rotated-since\n")
    expect(workingTreeMatches(root, ref)).toBe(true)
    writeFileSync(join(root, "src/app.ts"), "changed\n")
    expect(workingTreeMatches(root, ref)).toBe(false)
    restoreSnapshot(root, ref)
    expect(workingTreeMatches(root, ref)).toBe(true)
    writeFileSync(join(root, "constructor"), "a new file named like an Object property\n")
    expect(workingTreeMatches(root, ref)).toBe(false)
  })

  it("removes the folders its rollback emptied, and keeps the folders that were empty when it was taken", () => {
    const root = tempProject({ "src/app.ts": "export const answer = 42\n" })
    emptiedByTheLoop(root, () => takeSnapshot(root, "loop-1", "start"))
  })

  it("refuses a snapshots folder that is a link, creating nothing through it", () => {
    const root = project()
    const elsewhere = tempProject()
    mkdirSync(join(root, ".ralph-mem"))
    symlinkSync(elsewhere, join(root, ".ralph-mem", "snapshots"))
    expect(() => takeSnapshot(root, "loop-1", "start")).toThrow(/symbolic link/)
    expect(readdirSync(elsewhere)).toEqual([])
  })

  it("leaves out key stores and files of secrets by name, binary ones too, which the filter cannot read", () => {
    const root = tempProject({ "src/app.ts": "export const answer = 42\n", "deploy/prod.env": "FEATURE=1\n" })
    // A PKCS#12 bundle and a KeePass database: binary (a NUL early on), the private key and the passwords inside.
    const p12 = Buffer.concat([Buffer.from([0x30, 0x82, 0x0a, 0x00, 0x02]), Buffer.from("P12KeyBytes-5521")])
    const kdbx = Buffer.concat([Buffer.from([0x03, 0xd9, 0xa2, 0x9a, 0x00]), Buffer.from("KdbxBytes-5522")])
    writeFileSync(join(root, "src", "keystore.p12"), p12)
    writeFileSync(join(root, "vault.kdbx"), kdbx)
    writeFileSync(join(root, "release.jks"), p12)
    const ref = takeSnapshot(root, "loop-1", "start")
    const copied = walk(join(root, ".ralph-mem", "snapshots", "loop-1", "start", "files")).filter((e) => !e.folder)
    expect(copied.map((e) => e.path.split("/files/")[1])).toEqual(["src/app.ts"])
    for (const entry of walk(join(root, ".ralph-mem")).filter((e) => !e.folder)) {
      const bytes = readFileSync(entry.path).toString("latin1")
      for (const secret of ["P12KeyBytes-5521", "KdbxBytes-5522"]) expect(bytes).not.toContain(secret)
    }
    // A rollback leaves them as they are.
    writeFileSync(join(root, "vault.kdbx"), "changed since")
    restoreSnapshot(root, ref)
    expect(readFileSync(join(root, "vault.kdbx"), "utf8")).toBe("changed since")
  })

  it("keeps a Keynote document named .key (a zip) and restores it, and still leaves out keys named .key", () => {
    const root = tempProject({ "src/app.ts": "export const answer = 42\n" })
    // A Keynote document: a zip package, binary.
    const talk = Buffer.concat([
      Buffer.from("PK\x03\x04\x14\x00\x00\x00\x08\x00", "latin1"),
      Buffer.from("Index/Document.iwa slides-7731")
    ])
    writeFileSync(join(root, "talk.key"), talk)
    // Keys in the shapes `.key` files hold them: PEM, a WireGuard key on one base64 line, DER (binary).
    writeFileSync(
      join(root, "server.key"),
      "-----BEGIN PRIVATE KEY-----\nPemKeyBytes-5531\n-----END PRIVATE KEY-----\n"
    )
    writeFileSync(join(root, "wg0.key"), "WgKeyBytes5532aaaaaaaaaaaaaaaaaaaaaaaaaaaaaa=\n")
    writeFileSync(
      join(root, "der.key"),
      Buffer.concat([Buffer.from([0x30, 0x82, 0x04, 0xbe, 0x02]), Buffer.from("Der-5533")])
    )
    // A zip named .key that holds a PEM key stored as it is: still a key.
    writeFileSync(
      join(root, "keys.key"),
      Buffer.concat([Buffer.from("PK\x03\x04\x0a\x00", "latin1"), Buffer.from("-----BEGIN PRIVATE KEY-----Zip-5534")])
    )
    const ref = takeSnapshot(root, "loop-1", "start")
    const copied = walk(join(root, ".ralph-mem", "snapshots", "loop-1", "start", "files")).filter((e) => !e.folder)
    expect(copied.map((e) => e.path.split("/files/")[1]).sort()).toEqual(["src/app.ts", "talk.key"])
    for (const entry of walk(join(root, ".ralph-mem")).filter((e) => !e.folder)) {
      const bytes = readFileSync(entry.path).toString("latin1")
      for (const secret of ["PemKeyBytes-5531", "WgKeyBytes5532", "Der-5533", "Zip-5534"]) {
        expect(bytes).not.toContain(secret)
      }
    }
    // The loop broke the talk and removed it: the rollback brings it back; the key stays as it is now.
    rmSync(join(root, "talk.key"))
    writeFileSync(join(root, "server.key"), "rotated since\n")
    restoreSnapshot(root, ref)
    expect(readFileSync(join(root, "talk.key")).equals(talk)).toBe(true)
    expect(readFileSync(join(root, "server.key"), "utf8")).toBe("rotated since\n")
    expect(workingTreeMatches(root, ref)).toBe(true)
  })
})

const gitIn = (cwd: string, ...args: ReadonlyArray<string>) =>
  execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@localhost", ...args], { cwd, encoding: "utf8" })

describe("a git snapshot", () => {
  it("rolls back files created under names git would quote: Korean, quotes, newlines, a leading dash", () => {
    const root = tempProject({ "a.txt": "a\n", "한글-kept.txt": "kept\n" })
    gitIn(root, "init", "-q")
    gitIn(root, "commit", "-q", "--allow-empty", "-m", "init")
    const ref = takeSnapshot(root, "loop-1", "start")
    for (const name of ["새파일.txt", "q\"uote.txt", "new\nline.txt", "tab\there.txt", "back\\slash", "-rf", " lead"]) {
      writeFileSync(join(root, name), "made by the loop\n")
    }
    restoreSnapshot(root, ref)
    expect(readdirSync(root).sort()).toEqual([".git", "a.txt", "한글-kept.txt"])
    expect(workingTreeMatches(root, ref)).toBe(true)
  })

  it("rolls back when a path the index still names is now a folder the loop made", () => {
    const root = tempProject({ "gone.txt": "tracked\n", "work.txt": "original\n" })
    gitIn(root, "init", "-q")
    gitIn(root, "add", "-A")
    gitIn(root, "commit", "-qm", "init")
    // Deleted by the user, not staged: the snapshot lacks it, the index still has it.
    rmSync(join(root, "gone.txt"))
    const ref = takeSnapshot(root, "loop-1", "start")
    mkdirSync(join(root, "gone.txt"))
    writeFileSync(join(root, "gone.txt", "made-by-the-loop"), "x\n")
    writeFileSync(join(root, "work.txt"), "changed\n")
    restoreSnapshot(root, ref)
    expect(readFileSync(join(root, "work.txt"), "utf8")).toBe("original\n")
    expect(existsSync(join(root, "gone.txt", "made-by-the-loop"))).toBe(false)
    // The folder the rollback emptied goes with its file: the snapshot had nothing there.
    expect(existsSync(join(root, "gone.txt"))).toBe(false)
    expect(workingTreeMatches(root, ref)).toBe(true)
  })

  it("removes the folders it emptied, and keeps the folders that were empty when the snapshot was taken", () => {
    const root = tempProject({ "src/app.ts": "export const answer = 42\n" })
    gitIn(root, "init", "-q")
    gitIn(root, "add", "-A")
    gitIn(root, "commit", "-qm", "init")
    emptiedByTheLoop(root, () => takeSnapshot(root, "loop-1", "start"))
  })

  it("keeps a tree of empty folders too large to name one by one whole, and still removes the loop's own", () => {
    const root = tempProject({ "src/app.ts": "export const answer = 42\n" })
    gitIn(root, "init", "-q")
    gitIn(root, "commit", "-q", "--allow-empty", "-m", "init")
    // Named one by one: more than one argument of a process may hold (128 KiB).
    for (let i = 0; i < 3_000; i++) mkdirSync(join(root, "listed", `${"l".repeat(60)}-${i}`), { recursive: true })
    // Past the 10,000 folders named one by one: named whole.
    for (let i = 0; i < 7_001; i++) mkdirSync(join(root, "many", `f${i}`), { recursive: true })
    const ref = takeSnapshot(root, "loop-1", "start")
    writeFileSync(join(root, "listed", `${"l".repeat(60)}-5`, "made-by-the-loop"), "x\n")
    writeFileSync(join(root, "many", "f7", "made-by-the-loop"), "x\n")
    mkdirSync(join(root, "many", "f8", "new"))
    writeFileSync(join(root, "many", "f8", "new", "made-by-the-loop"), "x\n")
    mkdirSync(join(root, "loop-made"))
    writeFileSync(join(root, "loop-made", "file"), "x\n")
    restoreSnapshot(root, ref)
    expect(readdirSync(join(root, "many", "f7"))).toEqual([])
    expect(readdirSync(join(root, "many", "f8"))).toEqual(["new"])
    expect(readdirSync(join(root, "many")).length).toBe(7_001)
    expect(readdirSync(join(root, "listed")).length).toBe(3_000)
    expect(readdirSync(join(root, "listed", `${"l".repeat(60)}-5`))).toEqual([])
    expect(existsSync(join(root, "loop-made"))).toBe(false)
  })

  it("rolls back a project whose file list is larger than a child process's default output buffer", () => {
    // Over 1 MiB of names: long folder names keep the file count (and the test) small.
    const root = tempProject({ "work.txt": "original\n" })
    const folder = join(root, "d".repeat(200), "e".repeat(200))
    mkdirSync(folder, { recursive: true })
    for (let i = 0; i < 2_800; i++) writeFileSync(join(folder, `file-${i}`), "")
    gitIn(root, "init", "-q")
    gitIn(root, "commit", "-q", "--allow-empty", "-m", "init")
    const ref = takeSnapshot(root, "loop-1", "start")
    writeFileSync(join(root, "work.txt"), "changed\n")
    restoreSnapshot(root, ref)
    expect(readFileSync(join(root, "work.txt"), "utf8")).toBe("original\n")
  })
})
