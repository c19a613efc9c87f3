/**
 * The one error body every service and the gateway answer with:
 *
 * ```json
 * {"error":{"code":"API_KEY_EXPIRED","message":"API key has expired","requestId":"…","details":…}}
 * ```
 *
 * Errors are ordinary `Schema.TaggedError` classes (yieldable, `catchTag`-able). Their wire form is
 * declared separately by {@link httpError}, which attaches the HTTP status and the stable `code`
 * and fills `requestId` from the fiber that encodes the response.
 */
import * as HttpApiError from "@effect/platform/HttpApiError"
import * as HttpApiSchema from "@effect/platform/HttpApiSchema"
import * as Effect from "effect/Effect"
import * as FiberRef from "effect/FiberRef"
import { globalValue } from "effect/GlobalValue"
import * as ParseResult from "effect/ParseResult"
import * as Schema from "effect/Schema"

/** The id of the request being served; set by the HTTP request middleware. */
export const CurrentRequestId: FiberRef.FiberRef<string> = globalValue(
  Symbol.for("@voiceagent/domain/CurrentRequestId"),
  () => FiberRef.unsafeMake("none")
)

/** Fields every API error class carries. `message` defaults to the class's fixed text. */
export const errorFields = (defaultMessage: string) => ({
  message: Schema.optionalWith(Schema.String, { default: () => defaultMessage }),
  details: Schema.optional(Schema.Unknown),
  requestId: Schema.optional(Schema.String)
})

/** What an error instance must expose to be written as the standard body. */
export interface ErrorLike {
  readonly message: string
  readonly details?: unknown
  readonly requestId?: string | undefined
}

export const ErrorBody = <const Code extends string>(code: Code) =>
  Schema.Struct({
    error: Schema.Struct({
      code: Schema.Literal(code),
      message: Schema.String,
      requestId: Schema.String,
      details: Schema.optional(Schema.Unknown)
    })
  })

export type ErrorBody = Schema.Schema.Type<ReturnType<typeof ErrorBody<string>>>

/** The wire schema of an API error: the class on the type side, the standard body on the wire. */
export interface HttpError<A> extends Schema.Schema<A, ErrorBody> {}

const bodyFor = (code: string, error: ErrorLike) =>
  Effect.map(FiberRef.get(CurrentRequestId), (requestId) => ({
    error: {
      code,
      message: error.message,
      requestId: error.requestId ?? requestId,
      ...(error.details === undefined ? {} : { details: error.details })
    }
  }))

/**
 * Declares how an error class travels over HTTP: status, stable code, and the standard body.
 */
export const httpError = <A extends ErrorLike, I>(
  cls: Schema.Schema<A, I> & {
    readonly identifier?: string
    new(props: { readonly message: string; readonly requestId: string; readonly details?: unknown }): A
  },
  options: { readonly status: number; readonly code: string; readonly description?: string }
): HttpError<A> =>
  Schema.transformOrFail(ErrorBody(options.code), Schema.typeSchema(cls), {
    strict: false,
    decode: (body) =>
      ParseResult.succeed(
        new cls({
          message: body.error.message,
          requestId: body.error.requestId,
          ...(body.error.details === undefined ? {} : { details: body.error.details })
        })
      ),
    encode: (error) => bodyFor(options.code, error)
  }).annotations({
    ...HttpApiSchema.annotations({ status: options.status }),
    identifier: options.code,
    description: options.description ?? options.code
  })

// ---------------------------------------------------------------------------
// Errors shared by every service
// ---------------------------------------------------------------------------

export interface ValidationIssue {
  readonly path: string
  readonly message: string
}

/** A request that does not match its schema (path, query, headers or body). */
export class ValidationFailed extends Schema.TaggedError<ValidationFailed>()(
  "ValidationFailed",
  errorFields("The request is invalid")
) {
  static readonly http: HttpError<ValidationFailed> = httpError(this, {
    status: 400,
    code: "VALIDATION_FAILED",
    description: "The request did not match the expected schema; `details` lists each offending field path"
  })

  static fromIssues(issues: ReadonlyArray<ValidationIssue>): ValidationFailed {
    const first = issues[0]
    const message = first === undefined
      ? "The request is invalid"
      : `Invalid request: ${first.path === "" ? "" : `${first.path}: `}${first.message}`
    return new ValidationFailed({ message, details: issues })
  }
}

/**
 * An optional field that fails reports one issue per member of `T | undefined`; the one about
 * `undefined` says nothing useful once the field is present, so it is dropped.
 */
const usefulIssues = (
  issues: ReadonlyArray<{ readonly path: ReadonlyArray<PropertyKey>; readonly message: string }>
): ReadonlyArray<ValidationIssue> => {
  const all = issues.map((issue) => ({ path: formatIssuePath(issue.path), message: issue.message }))
  // the other member's issue may be deeper (templates[3] for templates): its path starts with this one
  const within = (inner: string, outer: string) =>
    inner === outer || inner.startsWith(`${outer}.`) || inner.startsWith(`${outer}[`) || outer === ""
  return all.filter((issue) =>
    !(issue.message.startsWith("Expected undefined, actual") &&
      all.some((o) => o !== issue && within(o.path, issue.path)))
  )
}

/** Annotates a request schema so that every offending field is reported, not only the first. */
export const reportAllIssues = <S extends Schema.Schema.Any>(schema: S): S =>
  schema.annotations({ parseOptions: { errors: "all" } }) as S

export const formatIssuePath = (path: ReadonlyArray<PropertyKey>): string =>
  path.map((key, i) => typeof key === "number" ? `[${key}]` : i === 0 ? String(key) : `.${String(key)}`).join("")

/**
 * Replaces the platform's default encoding of `HttpApiDecodeError` with the standard body,
 * so a schema failure anywhere in a request answers `400 VALIDATION_FAILED` with field paths.
 */
export const DecodeErrorAsValidationFailed: HttpError<HttpApiError.HttpApiDecodeError> = Schema.transformOrFail(
  // widened to the `ErrorBody` every `HttpError` is encoded as (the literal is the same)
  ErrorBody<string>("VALIDATION_FAILED"),
  Schema.instanceOf(HttpApiError.HttpApiDecodeError),
  {
    strict: false,
    decode: (body) =>
      ParseResult.succeed(
        new HttpApiError.HttpApiDecodeError({
          message: body.error.message,
          issues: Array.isArray(body.error.details)
            ? body.error.details.map((d: { readonly path?: unknown; readonly message?: unknown }) => ({
              _tag: "Type" as const,
              path: [String(d.path)],
              message: String(d.message)
            }))
            : []
        })
      ),
    encode: (error) => bodyFor("VALIDATION_FAILED", ValidationFailed.fromIssues(usefulIssues(error.issues)))
  }
).annotations({
  ...HttpApiSchema.annotations({ status: 400 }),
  identifier: "VALIDATION_FAILED",
  description: "The request did not match the expected schema; `details` lists each offending field path"
})

export class NotFound extends Schema.TaggedError<NotFound>()("NotFound", errorFields("Not found")) {
  static readonly http: HttpError<NotFound> = httpError(this, { status: 404, code: "NOT_FOUND" })
}

export class TenantMismatch extends Schema.TaggedError<TenantMismatch>()(
  "TenantMismatch",
  errorFields("tenantId does not match the tenant of your credentials")
) {
  static readonly http: HttpError<TenantMismatch> = httpError(this, {
    status: 403,
    code: "TENANT_MISMATCH",
    description: "A tenantId in the request differs from the tenant the credential belongs to"
  })
}

/** Answered by the gateway (its protection, not a service): declared on the merged document only. */
export class RateLimited extends Schema.TaggedError<RateLimited>()(
  "RateLimited",
  errorFields("Too many requests")
) {
  static readonly http: HttpError<RateLimited> = httpError(this, {
    status: 429,
    code: "RATE_LIMITED",
    description:
      "The API key (or, without one, the client address) has used its request budget; retry after the `Retry-After` " +
      "header's seconds"
  })
}

/** Answered by the gateway when a body exceeds its route's limit: declared on the merged document only. */
export class PayloadTooLarge extends Schema.TaggedError<PayloadTooLarge>()(
  "PayloadTooLarge",
  errorFields("The request body is larger than allowed")
) {
  static readonly http: HttpError<PayloadTooLarge> = httpError(this, {
    status: 413,
    code: "PAYLOAD_TOO_LARGE",
    description:
      "The request body is larger than the route accepts (1 MiB for JSON by default; uploads have their own limits)"
  })
}

/** A request body in a media type its route does not read (answered before any handler runs). */
export class UnsupportedMediaType extends Schema.TaggedError<UnsupportedMediaType>()(
  "UnsupportedMediaType",
  errorFields("The request body's media type is not one this route reads")
) {
  static readonly http: HttpError<UnsupportedMediaType> = httpError(this, {
    status: 415,
    code: "UNSUPPORTED_MEDIA_TYPE",
    description: "The body's Content-Type is not what the route reads: application/json (UTF-8; +json types too), or " +
      "multipart/form-data with a boundary for uploads; `details.expected` names it"
  })
}

/** A request whose body stopped arriving (or whose headers never ended) within the server's timeouts. */
export class RequestTimeout extends Schema.TaggedError<RequestTimeout>()(
  "RequestTimeout",
  errorFields("The request was not received in time")
) {
  static readonly http: HttpError<RequestTimeout> = httpError(this, {
    status: 408,
    code: "REQUEST_TIMEOUT",
    description: "The request body stopped arriving for longer than the body timeout (15 s by default), or the " +
      "whole request took longer than the request timeout; the connection is closed"
  })
}

export class InternalError extends Schema.TaggedError<InternalError>()(
  "InternalError",
  errorFields("Internal server error")
) {
  static readonly http: HttpError<InternalError> = httpError(this, { status: 500, code: "INTERNAL_ERROR" })
}
