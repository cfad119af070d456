/** A working-memory command that does not fit (an empty decision, an unknown step): nothing is written. */
import * as Schema from "effect/Schema"

export class Refused extends Schema.TaggedError<Refused>()("Refused", { reason: Schema.String }) {
  override get message() {
    return this.reason
  }
}

export const refuse = (reason: string): Refused => new Refused({ reason })
