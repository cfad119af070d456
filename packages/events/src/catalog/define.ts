/**
 * How an event type is declared: a tag, a payload schema, the payload's current schema version, and
 * the upcasts that turn payloads stored under older versions into the current shape.
 *
 * The event log stores the tag in `type`, the version in `schema_version` and the encoded payload
 * (without the tag) as JSON. Decoding a stored payload picks the codec for its stored version, so an
 * old row is upcast on read and never rewritten.
 */
import * as Schema from "effect/Schema"
import * as SchemaAST from "effect/SchemaAST"
import * as SchemaGetter from "effect/SchemaGetter"

type Fields = Schema.Struct.Fields

/** One step of an upcast chain: how a payload of `version` becomes a payload of `version + 1`. */
export interface Upcast {
  readonly version: number
  /** The payload schema as it was written under `version`. */
  readonly schema: Schema.Codec<any, any>
  /** Maps a decoded `version` payload to the encoded payload of `version + 1`. */
  readonly up: (previous: any) => unknown
}

export interface EventDefinition<Tag extends string = string, F extends Fields = Fields> {
  readonly type: Tag
  readonly version: number
  /** The event as the domain sees it: `{ _tag, ...payload }`. */
  readonly schema: Schema.TaggedStruct<Tag, F>
  /** The payload as stored under the current version. */
  readonly payload: Schema.Struct<F>
  /** Codec for a payload stored under `version`, decoding to the current payload type. */
  readonly codecFor: (version: number) => Schema.Codec<Schema.Struct<F>["Type"], unknown> | undefined
  /** Whether the current payload is stored as it is (no field is transformed on the way to JSON). */
  readonly storedAsIs: boolean
}

/**
 * Declares an event type. `upcasts` lists the older versions in ascending order; the current version
 * is one past the last upcast (1 when there are none).
 */
export const defineEvent = <const Tag extends string, const F extends Fields>(
  type: Tag,
  /** The payload's fields, or a function making them (then they are made on first use, with the schemas). */
  declaredFields: F | (() => F),
  upcasts: ReadonlyArray<Upcast> = []
): EventDefinition<Tag, F> => {
  const version = upcasts.length + 1
  upcasts.forEach((step, index) => {
    if (step.version !== index + 1) {
      throw new Error(`${type}: upcasts must be listed from version 1 up, found ${step.version} at ${index}`)
    }
  })
  // Schemas are built on first use: a hook process touches one or two of the catalog's event types,
  // and building every schema at start-up would cost each hook several milliseconds.
  let built: {
    schema: Schema.TaggedStruct<Tag, F>
    payload: Schema.Struct<F>
    codecs: Map<number, Schema.Codec<any, any>>
  } | undefined
  const build = () => {
    if (built !== undefined) return built
    const fields = typeof declaredFields === "function" ? declaredFields() : declaredFields
    const payload = Schema.Struct(fields)
    // Build from the current version down: the codec for version n decodes n and feeds n + 1's codec.
    // Event payloads are plain data: their codecs never need services.
    const codecs = new Map<number, Schema.Codec<any, any>>([[version, payload as unknown as Schema.Codec<any, any>]])
    for (let index = upcasts.length - 1; index >= 0; index--) {
      const step = upcasts[index]!
      const next = codecs.get(step.version + 1)!
      codecs.set(
        step.version,
        step.schema.pipe(
          Schema.decodeTo(next, {
            decode: SchemaGetter.transform(step.up),
            encode: SchemaGetter.forbidden(() =>
              `${type} v${step.version} is read-only: events are written at v${version}`
            )
          })
        )
      )
    }
    built = { schema: Schema.TaggedStruct(type, fields), payload, codecs }
    return built
  }
  return {
    type,
    version,
    get schema() {
      return build().schema
    },
    get payload() {
      return build().payload
    },
    codecFor: (stored) => build().codecs.get(stored),
    get storedAsIs() {
      const ast = build().payload.ast
      return SchemaAST.toEncoded(ast) === ast
    }
  }
}
