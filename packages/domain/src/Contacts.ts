import * as Either from "effect/Either"
import * as Schema from "effect/Schema"
import { errorFields, type HttpError, httpError } from "./ApiError.js"
import { ContactId, ContactListId, TenantId } from "./Ids.js"
import { type JsonObject, JsonObjectSchema, Metadata, metadataProblem, unstorable } from "./Json.js"
import { CONTACT_LIMITS } from "./Limits.js"
import { IntFromQuery } from "./Pagination.js"
import { CountryCodeSchema, normalizePhone, type PhoneProblem } from "./Phone.js"
import { Timestamp } from "./Timestamp.js"

export const MAX_CONTACTS_PER_IMPORT = CONTACT_LIMITS.perImport
export const MAX_CONTACTS_LIMIT = CONTACT_LIMITS.pageSize
export const DEFAULT_CONTACTS_LIMIT = CONTACT_LIMITS.defaultPageSize

// ---------------------------------------------------------------------------
// Contact lists
// ---------------------------------------------------------------------------

export const ContactListName = Schema.Trim.pipe(
  Schema.filter((s) => s.length >= 1 && s.length <= CONTACT_LIMITS.name, {
    message: () => `name must be 1 to ${CONTACT_LIMITS.name} characters`
  })
)

/**
 * List metadata is free-form, except `defaultCountry`: when present it must be an ISO 3166-1
 * alpha-2 code, and phone numbers written without a country code are read as that country's.
 */
export const ContactListMetadata = JsonObjectSchema().pipe(
  Schema.filter((m) => {
    const country = (m as JsonObject)["defaultCountry"]
    return country === undefined || country === null || Schema.is(CountryCodeSchema)(country)
  }, { message: () => "metadata.defaultCountry must be an ISO 3166-1 alpha-2 country code such as US, IN or GB" })
)

export class ContactList extends Schema.Class<ContactList>("ContactList")({
  id: ContactListId,
  tenantId: TenantId,
  name: Schema.String,
  metadata: Metadata,
  contactCount: Schema.Int.annotations({ description: "Contacts in the list" }),
  createdAt: Timestamp,
  updatedAt: Timestamp
}) {}

export class CreateContactListRequest extends Schema.Class<CreateContactListRequest>("CreateContactListRequest")({
  name: ContactListName,
  metadata: Schema.optional(ContactListMetadata)
}) {}

export class UpdateContactListRequest extends Schema.Class<UpdateContactListRequest>("UpdateContactListRequest")({
  name: Schema.optional(ContactListName),
  metadata: Schema.optional(JsonObjectSchema()).annotations({
    description: "Merged into the stored metadata (RFC 7396); null values remove keys"
  })
}) {}

export const defaultCountryOf = (metadata: JsonObject): string | null => {
  const country = metadata["defaultCountry"]
  return typeof country === "string" ? country : null
}

// ---------------------------------------------------------------------------
// Contacts
// ---------------------------------------------------------------------------

export class Contact extends Schema.Class<Contact>("Contact")({
  id: ContactId,
  tenantId: TenantId,
  contactListId: ContactListId,
  phoneNumber: Schema.String.annotations({ description: "E.164" }),
  name: Schema.NullOr(Schema.String),
  email: Schema.NullOr(Schema.String),
  metadata: Metadata,
  createdAt: Timestamp,
  updatedAt: Timestamp
}) {}

/** A contact as sent by a client: the phone is normalised against the list's default country. */
export const ContactInput = Schema.Struct({
  phoneNumber: Schema.String,
  name: Schema.optional(Schema.NullOr(Schema.String)),
  email: Schema.optional(Schema.NullOr(Schema.String)),
  metadata: Schema.optional(Schema.NullOr(Schema.Unknown))
}).annotations({ identifier: "ContactInput" })
export type ContactInput = typeof ContactInput.Type

export class BulkContactsRequest extends Schema.Class<BulkContactsRequest>("BulkContactsRequest")({
  contacts: Schema.Array(ContactInput).pipe(
    Schema.maxItems(MAX_CONTACTS_PER_IMPORT, {
      message: () => `at most ${MAX_CONTACTS_PER_IMPORT} contacts per request`
    })
  )
}) {}

export class UpdateContactRequest extends Schema.Class<UpdateContactRequest>("UpdateContactRequest")({
  phoneNumber: Schema.optional(Schema.String),
  name: Schema.optional(Schema.NullOr(Schema.String)),
  email: Schema.optional(Schema.NullOr(Schema.String)),
  metadata: Schema.optional(JsonObjectSchema()).annotations({
    description: "Merged into the stored metadata (RFC 7396); null values remove keys"
  })
}) {}

export const InvalidRow = Schema.Struct({
  row: Schema.Int.annotations({
    description:
      "CSV: the spreadsheet row (the header is row 1, the first contact row 2; blank lines count). JSON: the " +
      "position in contacts, from 1"
  }),
  phone: Schema.String.annotations({ description: "The phone value as sent" }),
  reason: Schema.String.annotations({
    description: "duplicate | missing_phone | invalid_phone | missing_country_code | invalid_email | invalid_name | " +
      "invalid_metadata"
  })
})
export type InvalidRow = typeof InvalidRow.Type

export class ImportResult extends Schema.Class<ImportResult>("ImportResult")({
  imported: Schema.Int,
  skipped: Schema.Int,
  invalidRows: Schema.Array(InvalidRow)
}) {}

export const ContactsQuery = Schema.Struct({
  page: Schema.optional(IntFromQuery("page", 1, 1_000_000_000 - 1)),
  limit: Schema.optional(IntFromQuery("limit", 1, MAX_CONTACTS_LIMIT))
})

export const ContactsPage = Schema.Struct({
  data: Schema.Array(Contact),
  total: Schema.Int,
  page: Schema.Int,
  limit: Schema.Int.annotations({ description: "Page size; without page and limit, the whole list and its size" })
}).annotations({ identifier: "ContactsPage" })

// ---------------------------------------------------------------------------
// One contact's rules, shared by CSV upload, bulk and single creation
// ---------------------------------------------------------------------------

export type ContactProblem = PhoneProblem | "invalid_email" | "invalid_name" | "invalid_metadata"

export interface ValidContact {
  readonly phoneNumber: string
  readonly name: string | null
  readonly email: string | null
  readonly metadata: JsonObject
}

// The WHATWG HTML e-mail rule: what browsers accept in <input type=email>.
const EMAIL_LABEL = "[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?"
const EMAIL = new RegExp(`^[a-zA-Z0-9.!#$%&'*+/=?^_\`{|}~-]+@${EMAIL_LABEL}(?:\\.${EMAIL_LABEL})+$`)

const blank = (s: string | null | undefined): s is null | undefined | "" =>
  s === undefined || s === null || s.trim() === ""

export const validateContact = (
  input: {
    readonly phone: string
    readonly name?: string | null | undefined
    readonly email?: string | null | undefined
    readonly metadata?: unknown
  },
  defaultCountry: string | null
): Either.Either<ValidContact, ContactProblem> => {
  const phone = normalizePhone(input.phone, defaultCountry)
  if (Either.isLeft(phone)) return Either.left(phone.left)
  const name = blank(input.name) ? null : input.name.trim()
  // a CSV cell has not been through a request body's checks: what PostgreSQL cannot store is refused here
  if (name !== null && (name.length > CONTACT_LIMITS.name || unstorable(name) !== undefined)) {
    return Either.left("invalid_name")
  }
  const email = blank(input.email) ? null : input.email.trim()
  if (email !== null && (email.length > 254 || !EMAIL.test(email))) return Either.left("invalid_email")
  const metadata = input.metadata ?? {}
  if (metadataProblem(metadata) !== undefined) return Either.left("invalid_metadata")
  return Either.right({ phoneNumber: phone.right, name, email, metadata: metadata as JsonObject })
}

// ---------------------------------------------------------------------------
// Errors
// ---------------------------------------------------------------------------

export class ContactListNotFound extends Schema.TaggedError<ContactListNotFound>()(
  "ContactListNotFound",
  errorFields("Contact list not found")
) {
  static readonly http: HttpError<ContactListNotFound> = httpError(this, {
    status: 404,
    code: "CONTACT_LIST_NOT_FOUND"
  })
}

export class ContactListNameTaken extends Schema.TaggedError<ContactListNameTaken>()(
  "ContactListNameTaken",
  errorFields("A contact list with this name already exists")
) {
  static readonly http: HttpError<ContactListNameTaken> = httpError(this, {
    status: 409,
    code: "CONTACT_LIST_NAME_TAKEN"
  })
}

export class ContactListInUse extends Schema.TaggedError<ContactListInUse>()(
  "ContactListInUse",
  errorFields("The contact list is used by a scheduled, running or paused campaign; abort the campaign first")
) {
  static readonly http: HttpError<ContactListInUse> = httpError(this, { status: 409, code: "CONTACT_LIST_IN_USE" })
}

export class ContactNotFound
  extends Schema.TaggedError<ContactNotFound>()("ContactNotFound", errorFields("Contact not found"))
{
  static readonly http: HttpError<ContactNotFound> = httpError(this, { status: 404, code: "CONTACT_NOT_FOUND" })
}

export class ContactExists extends Schema.TaggedError<ContactExists>()(
  "ContactExists",
  errorFields("A contact with this phone number is already in the list")
) {
  static readonly http: HttpError<ContactExists> = httpError(this, { status: 409, code: "CONTACT_EXISTS" })
}

export class InvalidContact
  extends Schema.TaggedError<InvalidContact>()("InvalidContact", errorFields("The contact is invalid"))
{
  static readonly http: HttpError<InvalidContact> = httpError(this, {
    status: 400,
    code: "INVALID_CONTACT",
    description:
      "details.reason: missing_phone | invalid_phone | missing_country_code | invalid_email | invalid_name | " +
      "invalid_metadata"
  })
}

export class UnsupportedFileType extends Schema.TaggedError<UnsupportedFileType>()(
  "UnsupportedFileType",
  errorFields("Only .csv files can be uploaded")
) {
  static readonly http: HttpError<UnsupportedFileType> = httpError(this, { status: 400, code: "UNSUPPORTED_FILE_TYPE" })
}

export class TooManyRows extends Schema.TaggedError<TooManyRows>()(
  "TooManyRows",
  errorFields(`A CSV upload holds at most ${MAX_CONTACTS_PER_IMPORT} contact rows; nothing was imported`)
) {
  static readonly http: HttpError<TooManyRows> = httpError(this, { status: 400, code: "TOO_MANY_ROWS" })
}

export const PHONE_HEADERS = ["phone_number", "phone", "mobile", "customer_number"] as const
export const NAME_HEADERS = ["name", "customer_name", "contact_name", "first_name"] as const

export class MissingPhoneColumn extends Schema.TaggedError<MissingPhoneColumn>()(
  "MissingPhoneColumn",
  errorFields(`The CSV has no phone column; name one of: ${PHONE_HEADERS.join(", ")} (any case, spaces or underscores)`)
) {
  static readonly http: HttpError<MissingPhoneColumn> = httpError(this, { status: 400, code: "MISSING_PHONE_COLUMN" })
}

export class InvalidCsv
  extends Schema.TaggedError<InvalidCsv>()("InvalidCsv", errorFields("The file is not valid CSV"))
{
  static readonly http: HttpError<InvalidCsv> = httpError(this, { status: 400, code: "INVALID_CSV" })
}
