/**
 * Phone numbers are stored and sent in E.164 (`+14155552671`). Validation uses the full metadata of
 * libphonenumber-js, so a number must be valid for its country, not only the right length.
 */
import * as Either from "effect/Either"
import * as Schema from "effect/Schema"
import { type CountryCode, isSupportedCountry, parsePhoneNumberFromString } from "libphonenumber-js/max"

const E164_SHAPE = /^\+[1-9]\d{1,14}$/

export type PhoneProblem = "missing_phone" | "invalid_phone" | "missing_country_code"

/**
 * Normalises what a person typed (spaces, dashes, dots, brackets tolerated) to E.164. A number
 * without a country code is accepted only when a default country is given.
 */
export const normalizePhone = (raw: string, defaultCountry?: string | null): Either.Either<string, PhoneProblem> => {
  const input = raw.trim()
  if (input === "") return Either.left("missing_phone")
  if (!/^\+?\d+$/.test(input.replace(/[\s().\-\/]/g, ""))) return Either.left("invalid_phone")
  const international = input.startsWith("+") || input.startsWith("00")
  const text = input.startsWith("00") ? `+${input.slice(2)}` : input
  if (!international && (defaultCountry === undefined || defaultCountry === null)) {
    return Either.left("missing_country_code")
  }
  const parsed = international
    ? parsePhoneNumberFromString(text)
    : parsePhoneNumberFromString(text, defaultCountry as CountryCode)
  return parsed !== undefined && parsed.isValid() ? Either.right(parsed.number) : Either.left("invalid_phone")
}

export const isValidE164 = (value: string): boolean =>
  E164_SHAPE.test(value) && Either.isRight(normalizePhone(value)) &&
  Either.getOrThrow(normalizePhone(value)) === value

/** A phone number given in E.164 exactly, and valid. */
export const E164 = Schema.String.pipe(
  Schema.filter(isValidE164, { message: () => "must be a valid phone number in E.164 format, e.g. +14155552671" }),
  Schema.annotations({ identifier: "E164", examples: ["+14155552671"] })
)

/** An ISO 3166-1 alpha-2 country libphonenumber knows, e.g. `US`, `IN`, `GB`. */
export const CountryCodeSchema = Schema.String.pipe(
  Schema.filter((s) => /^[A-Z]{2}$/.test(s) && isSupportedCountry(s), {
    message: () => "must be an ISO 3166-1 alpha-2 country code such as US, IN or GB"
  })
)

export const PhoneProviders = ["PROVIDER_A", "PROVIDER_B", "PROVIDER_C"] as const
export const PhoneProvider = Schema.Literal(...PhoneProviders)
export type PhoneProvider = typeof PhoneProvider.Type
