import * as HttpApi from "@effect/platform/HttpApi"
import * as OpenApi from "@effect/platform/OpenApi"
import * as Context from "effect/Context"
import { DecodeErrorAsValidationFailed, InternalError, RequestTimeout, UnsupportedMediaType } from "./ApiError.js"

/** A JSON object of the OpenAPI document (its values are checked where they are read). */
type JsonObject = { [key: string]: unknown }

const isJsonObject = (value: unknown): value is JsonObject =>
  typeof value === "object" && value !== null && !Array.isArray(value)

/** The members of an OpenAPI map (paths, operations, responses, media types) that are objects. */
const objectsIn = (map: unknown): Array<JsonObject> => isJsonObject(map) ? Object.values(map).filter(isJsonObject) : []

/**
 * One alternative per error body in each response of the OpenAPI document. An endpoint that fails
 * with `VALIDATION_FAILED` from its own checks declares that error too, and the platform would list
 * it twice under `400` (`anyOf` of the same schema): the document, not the wire, is what changes.
 */
export const withoutDuplicateAlternatives = <Spec extends JsonObject>(spec: Spec): Spec => {
  for (const operations of objectsIn(spec.paths)) {
    for (const operation of objectsIn(operations)) {
      for (const response of objectsIn(operation.responses)) {
        for (const media of objectsIn(response.content)) {
          const schema = media.schema
          if (!isJsonObject(schema)) continue
          const alternatives = schema.anyOf
          if (!Array.isArray(alternatives)) continue
          const seen = new Set<string>()
          const unique = alternatives.filter((alternative) => {
            const key = JSON.stringify(alternative)
            if (seen.has(key)) return false
            seen.add(key)
            return true
          })
          if (unique.length === alternatives.length) continue
          const { anyOf: _, ...rest } = schema
          media.schema = unique.length === 1 ? { ...rest, ...unique[0] } : { ...rest, anyOf: unique }
        }
      }
    }
  }
  return spec
}

/**
 * An endpoint annotated with this reads its JSON body itself, after authenticating it (a signature
 * over the raw bytes): the request rules check only its media type, and the handler applies the
 * JSON rules (`readJsonText`) once the signature holds, so an unsigned body is refused as unsigned.
 */
export class SignedBody extends Context.Tag("@voiceagent/domain/HttpApis/SignedBody")<SignedBody, boolean>() {}

/** `415 UNSUPPORTED_MEDIA_TYPE` is declared on every operation, but only one that takes a body can get it. */
export const withMediaTypeErrorsOnBodies = <Spec extends JsonObject>(spec: Spec): Spec => {
  for (const operations of objectsIn(spec.paths)) {
    for (const operation of objectsIn(operations)) {
      const responses = operation.responses
      if (operation.requestBody === undefined && isJsonObject(responses) && responses["415"] !== undefined) {
        delete responses["415"]
      }
    }
  }
  return spec
}

/**
 * `HttpApi.make`, with request-validation failures written in the standard error body.
 *
 * The platform hard-wires `HttpApiDecodeError` as every API's first error schema (see
 * Effect-TS/effect#5465); replacing that schema is the only way to keep one error shape
 * in both the responses and the OpenAPI document.
 */
export const makeApi = <const Id extends string>(identifier: Id) => {
  const api = HttpApi.make(identifier)
  const replaced: typeof api = Object.assign(Object.create(Object.getPrototypeOf(api)), api, {
    errorSchema: DecodeErrorAsValidationFailed
  })
  return replaced
    .addError(InternalError.http)
    // answered by the request rules and the server's timeouts, before any handler
    .addError(UnsupportedMediaType.http)
    .addError(RequestTimeout.http)
    .annotate(OpenApi.Transform, (spec) => withMediaTypeErrorsOnBodies(withoutDuplicateAlternatives(spec)))
}

export const API_PREFIX = "/api/v1"
