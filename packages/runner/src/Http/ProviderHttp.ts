/**
 * What every provider adapter does the same way: one HTTP exchange read as `{status, body}` (the
 * body parsed as JSON when it is JSON), under a timeout, with transport failures (a timeout, a
 * refused or reset connection) turned into a retryable `SendFailure`. Each adapter maps the answer.
 */
import type * as HttpClientError from "@effect/platform/HttpClientError"
import type * as HttpClientResponse from "@effect/platform/HttpClientResponse"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import { SendFailure } from "../Ports/MessageSenders.js"

export const trimSlash = (url: string) => url.replace(/\/+$/, "")

const parseJson = (text: string): unknown => {
  try {
    return JSON.parse(text)
  } catch {
    return undefined
  }
}

/** The value as an object to read fields from; `{}` for anything else. */
export const record = (value: unknown): Readonly<Record<string, unknown>> =>
  typeof value === "object" && value !== null && !Array.isArray(value) ? value as Record<string, unknown> : {}

export interface Answer {
  readonly status: number
  readonly body: unknown
}

/** Runs the request and reads its answer within `timeout`; `label` names the provider in failures. */
export const exchange = (label: string, timeout: Duration.DurationInput) =>
<R>(
  request: Effect.Effect<HttpClientResponse.HttpClientResponse, HttpClientError.HttpClientError, R>
): Effect.Effect<Answer, SendFailure, R> =>
  request.pipe(
    Effect.flatMap((response) =>
      Effect.map(response.text, (text) => ({ status: response.status, body: parseJson(text) }))
    ),
    Effect.timeout(timeout),
    Effect.mapError((error) =>
      new SendFailure({
        retryable: true,
        status: null,
        code: null,
        message: error._tag === "TimeoutException"
          ? `${label} timed out after ${Duration.toMillis(Duration.decode(timeout)) / 1000} s`
          : `${label} could not be reached: ${error.message}`
      })
    )
  )
