import * as HttpApi from "@effect/platform/HttpApi"
import { DecodeErrorAsValidationFailed, InternalError } from "./ApiError.js"

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
  return replaced.addError(InternalError.http)
}

export const API_PREFIX = "/api/v1"
