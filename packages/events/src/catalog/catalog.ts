/**
 * A catalog turns a list of event definitions into the encode/decode functions the log uses.
 * It is the single source of truth for event shapes: nothing is written that it cannot encode,
 * and every stored payload is read back through it.
 */
import * as Result from "effect/Result"
import * as Schema from "effect/Schema"
import type { EventDefinition } from "./define.ts"

/** The domain shape of any event of a set of definitions: `{ _tag, ...payload }`. */
export type EventOf<D extends EventDefinition<any, any>> = D extends EventDefinition<any, any> ? D["schema"]["Type"]
  : never

export interface EncodedEvent {
  readonly type: string
  readonly schemaVersion: number
  readonly payload: string
}

export interface Catalog<E> {
  readonly types: ReadonlyArray<string>
  readonly has: (type: string) => boolean
  /** Validates and encodes an event for storage; `Failure` carries a readable reason. */
  readonly encode: (event: E) => Result.Result<EncodedEvent, string>
  /** Decodes a stored payload of any known version into the current event shape. */
  readonly decode: (type: string, schemaVersion: number, payload: unknown) => Result.Result<E, string>
  /**
   * Decodes a payload read back from the log, which `encode` validated when it was appended: one stored
   * at its type's current version, by a schema that stores it as it is, is that event without being
   * checked again (what a replay of a million events saves); any other goes through `decode`.
   */
  readonly decodeStored: (type: string, schemaVersion: number, payload: unknown) => Result.Result<E, string>
}

export const makeCatalog = <const Ds extends ReadonlyArray<EventDefinition<any, any>>>(
  definitions: Ds
): Catalog<EventOf<Ds[number]>> => {
  type E = EventOf<Ds[number]>
  const byType = new Map<string, EventDefinition<any, any>>()
  for (const definition of definitions) {
    if (byType.has(definition.type)) throw new Error(`event type ${definition.type} is declared twice`)
    byType.set(definition.type, definition)
  }
  const encoders = new Map<string, (input: unknown) => Result.Result<unknown, Schema.SchemaError>>()
  const encoderFor = (definition: EventDefinition<any, any>) => {
    let encoder = encoders.get(definition.type)
    if (encoder === undefined) {
      encoder = Schema.encodeUnknownResult(definition.payload as unknown as Schema.Codec<unknown, unknown>)
      encoders.set(definition.type, encoder)
    }
    return encoder
  }
  const decoders = new Map<string, (input: unknown) => Result.Result<any, Schema.SchemaError>>()
  const decoderFor = (type: string, version: number) => {
    const key = `${type}@${version}`
    let decoder = decoders.get(key)
    if (decoder === undefined) {
      const codec = byType.get(type)?.codecFor(version)
      if (codec === undefined) return undefined
      decoder = Schema.decodeUnknownResult(codec)
      decoders.set(key, decoder)
    }
    return decoder
  }

  const decode: Catalog<E>["decode"] = (type, schemaVersion, payload) => {
    const decoder = decoderFor(type, schemaVersion)
    if (decoder === undefined) {
      const known = byType.get(type)
      return Result.fail(
        known === undefined
          ? `unknown event type ${JSON.stringify(type)}`
          : `${type} v${schemaVersion} is newer than this ralph-mem knows (v${known.version})`
      )
    }
    const decoded = decoder(payload)
    if (Result.isFailure(decoded)) return Result.fail(`${type} v${schemaVersion}: ${decoded.failure.message}`)
    return Result.succeed({ _tag: type, ...decoded.success } as E)
  }
  /** For each type, the version its payloads are stored as they are at: its current one, or none. */
  const asIsVersions = new Map<string, number | null>()
  const storedAsIsAt = (type: string): number | null => {
    let version = asIsVersions.get(type)
    if (version === undefined) {
      const definition = byType.get(type)
      version = definition?.storedAsIs === true ? definition.version : null
      asIsVersions.set(type, version)
    }
    return version
  }

  return {
    types: [...byType.keys()],
    has: (type) => byType.has(type),
    encode: (event) => {
      const { _tag, ...payload } = event as unknown as { readonly _tag: string }
      const definition = byType.get(_tag)
      if (definition === undefined) return Result.fail(`unknown event type ${JSON.stringify(_tag)}`)
      const encoded = encoderFor(definition)(payload)
      if (Result.isFailure(encoded)) return Result.fail(`${_tag}: ${encoded.failure.message}`)
      return Result.succeed({
        type: definition.type,
        schemaVersion: definition.version,
        payload: JSON.stringify(encoded.success)
      })
    },
    decode,
    decodeStored: (type, schemaVersion, payload) =>
      storedAsIsAt(type) === schemaVersion && typeof payload === "object" && payload !== null && !Array.isArray(payload)
        ? Result.succeed({ _tag: type, ...payload } as unknown as E)
        : decode(type, schemaVersion, payload)
  }
}
