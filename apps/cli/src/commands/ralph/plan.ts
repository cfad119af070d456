/** `ralph plan <goal>`: a plan-only loop in this session; edits are blocked until the plan is complete. */
import { type Criterion, monotonicUlid } from "@ralph-mem/events"
import { DEFAULT_MIN_PLAN_ITERATIONS, DEFAULT_PLAN_MARKER, DEFAULT_PLAN_SECTIONS } from "@ralph-mem/loop"
import { Argument, Command, Flag } from "effect/cli"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { join, resolve } from "node:path"
import * as flags from "../../flags.ts"
import { configFromFlags, loopLimitFlags, sessionFlag, sessionToBind, startInSession } from "./shared.ts"

/** `--required-sections "Goal, Steps"` (repeatable): each value may list several, comma-separated. */
const sectionList = (values: ReadonlyArray<string>) =>
  values.flatMap((v) => v.split(",")).map((v) => v.trim()).filter((v) => v !== "")

export const plan = Command.make(
  "plan",
  {
    goal: Argument.String("goal").pipe(Argument.withDescription("What the plan is for"), Argument.variadic({ min: 1 })),
    requiredSections: flags.freeText("required-sections").pipe(
      Flag.withDescription(
        `Headings the plan must have, comma-separated or repeated (default: ${DEFAULT_PLAN_SECTIONS.join(", ")}); ` +
          "Korean headings count for English names"
      ),
      Flag.atLeast(0)
    ),
    minIterations: Flag.Int("min-iterations").pipe(
      Flag.withDescription(
        `The plan cannot be accepted before this iteration (default: ${DEFAULT_MIN_PLAN_ITERATIONS}; ` +
          "the first is a draft to critique)"
      ),
      Flag.optional
    ),
    marker: flags.freeText("marker").pipe(
      Flag.withDescription(`What ends a complete plan (default: ${DEFAULT_PLAN_MARKER})`),
      Flag.optional
    ),
    out: Flag.String("out").pipe(
      Flag.withDescription("Where the final plan is saved (default: .ralph-mem/plans/plan-<loop>.md)"),
      Flag.optional
    ),
    ...loopLimitFlags,
    session: sessionFlag,
    db: flags.db,
    json: flags.json
  },
  (input) =>
    Effect.gen(function*() {
      const sessionId = yield* sessionToBind(input.session)
      const sections = sectionList(input.requiredSections)
      const required = sections.length > 0 ? sections : DEFAULT_PLAN_SECTIONS
      const minIterations = Option.getOrElse(input.minIterations, () => DEFAULT_MIN_PLAN_ITERATIONS)
      if (minIterations < 1) return yield* flags.failWith("--min-iterations must be at least 1")
      const marker = Option.getOrElse(input.marker, () => DEFAULT_PLAN_MARKER).trim()
      if (marker === "") return yield* flags.failWith("--marker is empty")
      const gate: ReadonlyArray<Criterion> = [
        { kind: "marker", marker },
        { kind: "plan_sections", sections: required },
        { kind: "min_iterations", minIterations }
      ]
      const { root, config: base } = yield* configFromFlags({ ...input, criteria: [] })
      if (base.maxIterations < minIterations) {
        return yield* flags.failWith(
          `--max-iterations (${base.maxIterations}) is below --min-iterations (${minIterations})`
        )
      }
      const config = { ...base, successCriteria: gate }
      const goal = input.goal.join(" ")
      const loopId = monotonicUlid()()
      const path = Option.match(input.out, {
        onNone: () => join(root, ".ralph-mem", "plans", `plan-${loopId}.md`),
        onSome: (out) => resolve(out)
      })
      yield* startInSession(
        { ...input, sessionId },
        { loopId, root, goal, config, plan: { path } },
        [
          `Ralph plan loop ${loopId} started: ${goal}`,
          "Write a plan, not code: while this loop runs, file edits and commands that change anything are blocked. " +
          "Reading is fine.",
          `Put the complete plan in your reply, with a Markdown heading for each of: ${required.join(", ")} ` +
          "(Korean headings count too).",
          `The first reply is a draft: ralph-mem will ask you to critique and improve it. ` +
          `From iteration ${minIterations} on, end a complete plan with ${marker}.`,
          `The accepted plan is saved to ${path}.`
        ].join("\n")
      )
    })
).pipe(Command.withDescription(
  "Start a plan-only loop in this session: Claude iterates on a plan (edits blocked) " +
    "until it has every required section"
))
