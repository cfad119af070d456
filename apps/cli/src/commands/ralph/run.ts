/** `ralph run <goal>`: a loop driven from here, with a fresh agent process per iteration. */
import { monotonicUlid } from "@ralph-mem/events"
import { injectionBudgetTokens } from "@ralph-mem/hooks"
import {
  acceptPrdCommands,
  driveExternally,
  endMessage,
  execute,
  formatUsage,
  type Prd,
  prdCommandsAccepted,
  PrdInvalid,
  readPrd,
  statusReport,
  storyCommands,
  storyProgress
} from "@ralph-mem/loop"
import { TrustNotRecorded } from "@ralph-mem/settings"
import { Argument, Command, Flag } from "effect/cli"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { resolve } from "node:path"
import { withStore } from "../../command-memory.ts"
import * as flags from "../../flags.ts"
import { inert, printJson } from "../../output.ts"
import {
  agentFlag,
  agentTimeoutFlag,
  configFromFlags,
  criteriaFlag,
  loopLimitFlags,
  parseAgent,
  startSnapshot,
  waitCountdown,
  warnOfRunningLoops
} from "./shared.ts"

/** A PRD loop's stories, validated; every problem of the file is reported at once. */
const loadPrd = (path: string) => {
  const prd = readPrd(resolve(path))
  return prd instanceof PrdInvalid ? flags.failWith(prd.message) : Effect.succeed({ ...prd, path: resolve(path) })
}

/**
 * The commands a PRD's stories set run only once accepted (prd.ts): without `--accept-commands` the loop does not
 * start and says which they are; with it, they are shown and accepted until one changes.
 */
const checkStoryCommands = (globalConfigFile: string, prd: Prd & { readonly path: string }, accept: boolean) =>
  Effect.gen(function*() {
    const commands = storyCommands(prd)
    if (prdCommandsAccepted(globalConfigFile, prd.path, prd)) return
    const list = commands.map((c) => `  ${c}`).join("\n")
    if (!accept) {
      return yield* flags.failWith(inert(
        `${prd.path} sets commands for its stories' checks, which the loop would run on this machine:\n${list}\n` +
          "It may have come with the repository: review them, then run again with --accept-commands " +
          "(accepted until one of them changes)."
      ))
    }
    yield* flags.failingWith(TrustNotRecorded, () => acceptPrdCommands(globalConfigFile, prd.path, prd))
    yield* Console.error(inert(`Accepted the commands of ${prd.path} (until one of them changes):\n${list}`))
  })

export const run = Command.make(
  "run",
  {
    goal: Argument.String("goal").pipe(
      Argument.withDescription("What the loop works toward (with --prd: defaults to the PRD's description)"),
      Argument.variadic({ min: 0 })
    ),
    prd: Flag.String("prd").pipe(
      Flag.withDescription(
        "A prd.json of user stories: one story per iteration, highest priority first, " +
          "until every story passes the checks"
      ),
      Flag.optional
    ),
    acceptCommands: Flag.Boolean("accept-commands").pipe(
      Flag.withDescription(
        "Accept the commands the --prd file's stories set for their checks (listed when the loop refuses to start " +
          "without this); they stay accepted until one of them changes"
      ),
      Flag.withDefault(false)
    ),
    agent: agentFlag,
    agentTimeout: agentTimeoutFlag,
    ...loopLimitFlags,
    criteria: criteriaFlag,
    db: flags.db,
    json: flags.json
  },
  (input) =>
    Effect.gen(function*() {
      const prd = Option.isSome(input.prd) ? yield* loadPrd(input.prd.value) : undefined
      const goal = input.goal.join(" ").trim() || prd?.description ||
        (prd === undefined ? "" : `Make every story of ${prd.path} pass`)
      if (goal === "") return yield* flags.failWith("what should the loop work toward? Give a goal, or --prd prd.json")
      if (prd !== undefined && prd.stories.every((s) => s.passes)) {
        return yield* flags.failWith(`every story of ${prd.path} already passes`)
      }
      const { root, settings, files, config } = yield* configFromFlags(input)
      if (prd !== undefined) yield* checkStoryCommands(files.global, prd, input.acceptCommands)
      const { agent, agentTimeoutMs } = yield* parseAgent(input)
      yield* withStore(input.db, (memory) =>
        Effect.gen(function*() {
          const loopId = monotonicUlid()()
          yield* warnOfRunningLoops(memory, root)
          const snapshot = yield* startSnapshot(root, loopId)
          yield* execute(memory, loopId, {
            _tag: "Start",
            loopId,
            goal,
            projectPath: root,
            driver: "external",
            config,
            ...snapshot,
            ...(prd === undefined ? {} : { prd: { path: prd.path, stories: prd.stories } })
          }, "cli:ralph-run")
          if (!input.json) {
            const stories = prd === undefined ? "" : `; ${prd.stories.length} stories from ${prd.path}`
            yield* Console.log(inert(`Ralph loop ${loopId}: ${goal} (agent: ${agent.join(" ")}${stories})`))
          }
          const loop = yield* driveExternally(memory, loopId, {
            agent,
            env: process.env,
            agentTimeoutMs,
            injectionBudgetTokens: injectionBudgetTokens(settings),
            onIteration: (l) => {
              if (input.json) return
              const it = l.iterations.at(-1)!
              const story = it.storyId === undefined ? "" : ` ${it.storyId}`
              const progress = storyProgress(l)
              const checks = (it.results ?? []).map((r) => `${r.kind} ${r.passed ? "ok" : "failed"}`).join(", ")
              process.stdout.write(inert(
                `iteration ${it.iteration}${story}: ${it.passed ? "passed" : "failed"} (${checks})` +
                  `${progress === undefined ? "" : `; ${progress}`}; ${formatUsage(it.usage)}` +
                  `${it.snapshotProblem === undefined ? "" : `; no snapshot (${it.snapshotProblem})`}\n`
              ))
            },
            onWait: waitCountdown()
          })
          if (input.json) return yield* printJson(statusReport(loop))
          yield* Console.log(endMessage(loop))
          if (loop.status !== "success") return yield* flags.failWith(`the loop did not succeed (${loop.status})`)
        }))
    })
).pipe(Command.withDescription(
  "Run a loop with a fresh agent process per iteration (default: claude -p) until the checks pass"
))
