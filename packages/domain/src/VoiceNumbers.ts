import * as Schema from "effect/Schema"
import { errorFields, type HttpError, httpError } from "./ApiError.js"
import { VoiceNumberId } from "./Ids.js"
import { VOICE_NUMBER_LIMITS } from "./Limits.js"
import { E164, PhoneProvider } from "./Phone.js"
import { Timestamp } from "./Timestamp.js"

export class VoiceNumber extends Schema.Class<VoiceNumber>("VoiceNumber")({
  id: VoiceNumberId,
  phoneNumber: Schema.String,
  provider: PhoneProvider,
  label: Schema.NullOr(Schema.String),
  createdAt: Timestamp,
  updatedAt: Timestamp
}) {}

export class CreateVoiceNumberRequest extends Schema.Class<CreateVoiceNumberRequest>("CreateVoiceNumberRequest")({
  phoneNumber: E164,
  provider: PhoneProvider,
  label: Schema.optional(
    Schema.Trim.pipe(Schema.filter((s) => s.length >= 1 && s.length <= VOICE_NUMBER_LIMITS.label, {
      message: () => `label must be 1 to ${VOICE_NUMBER_LIMITS.label} characters`
    }))
  )
}) {}

export class VoiceNumberNotFound extends Schema.TaggedError<VoiceNumberNotFound>()(
  "VoiceNumberNotFound",
  errorFields("Voice number not found")
) {
  static readonly http: HttpError<VoiceNumberNotFound> = httpError(this, {
    status: 404,
    code: "VOICE_NUMBER_NOT_FOUND"
  })
}

export class VoiceNumberExists extends Schema.TaggedError<VoiceNumberExists>()(
  "VoiceNumberExists",
  errorFields("This phone number is already registered to your tenant")
) {
  static readonly http: HttpError<VoiceNumberExists> = httpError(this, { status: 409, code: "VOICE_NUMBER_EXISTS" })
}
