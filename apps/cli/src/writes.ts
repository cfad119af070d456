/**
 * The writes that both the user (`ralph-mem inject`, `decide`) and Claude (the memory tools' `remember`)
 * make: one path for both, so whatever either writes is an event appended to the log, where every string
 * passes the privacy filter before it is stored.
 */
import { type AppendError, type DecisionImpact, monotonicUlid, type RecordedEvent, streams } from "@ralph-mem/events"
import { type MemoryStore, refuse, Refused } from "@ralph-mem/projections"
import { decideDecision } from "@ralph-mem/working"
import * as Effect from "effect/Effect"

export interface NoteToWrite {
  readonly project: string
  readonly text: string
  /** A label: note, convention, warning, ... */
  readonly noteType: string
  /** The session it was written in, when there is one. */
  readonly sessionId?: string
  readonly writer: string
}

/** A note's text as it is stored, trimmed as the deciders trim theirs; refused when nothing is left of it. */
export const noteText = (text: string): string | Refused => {
  const trimmed = text.trim()
  return trimmed === "" ? refuse("the note is empty") : trimmed
}

/** A note, injected at the start of later sessions of the project; `stored` is its event (forget takes its id). */
export const writeNote = (
  memory: MemoryStore,
  note: NoteToWrite
): Effect.Effect<{ readonly noteId: string; readonly stored: RecordedEvent }, Refused | AppendError> =>
  Effect.suspend(() => {
    const text = noteText(note.text)
    if (text instanceof Refused) return Effect.fail<Refused | AppendError>(text)
    const noteId = monotonicUlid()()
    return memory.log
      .append(
        streams.note(noteId),
        [
          {
            _tag: "NoteInjected",
            noteId,
            projectPath: note.project,
            noteType: note.noteType,
            text,
            ...(note.sessionId === undefined ? {} : { sessionId: note.sessionId })
          }
        ],
        { expectedVersion: "no_stream", writer: note.writer }
      )
      .pipe(Effect.map(({ events }) => ({ noteId, stored: events[0]! })))
  })

export interface DecisionToWrite {
  readonly project: string
  readonly decision: string
  readonly rationale: string
  /** As typed: `<option>: <why it was rejected>`, or just the option. */
  readonly alternatives: ReadonlyArray<string>
  readonly impact: DecisionImpact
  readonly taskId?: string
  readonly writer: string
}

/** A decision with its rationale and the alternatives it rejected; refused when one of them is empty. */
export const writeDecision = (
  memory: MemoryStore,
  input: DecisionToWrite
): Effect.Effect<RecordedEvent, Refused | AppendError> =>
  Effect.suspend(() => {
    const decisionId = monotonicUlid()()
    const events = decideDecision({ decisionId, projectPath: input.project, ...input })
    if (events instanceof Refused) return Effect.fail<Refused | AppendError>(events)
    return memory.log
      .append(streams.decision(decisionId), events, { expectedVersion: "no_stream", writer: input.writer })
      .pipe(Effect.map(({ events }) => events[0]!))
  })
