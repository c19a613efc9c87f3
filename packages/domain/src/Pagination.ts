/**
 * Page-based lists: `page` (default 1) and `pageSize` (default 20, 15 for campaign lists,
 * at most 100) in the query; `{items, total, page, pageSize, totalPages}` in the answer.
 */
import * as Schema from "effect/Schema"

export const MAX_PAGE_SIZE = 100
export const DEFAULT_PAGE_SIZE = 20
export const CAMPAIGN_PAGE_SIZE = 15

/** A decimal integer in a query string, within bounds, with a message naming the rule. */
export const IntFromQuery = (name: string, min: number, max: number) =>
  Schema.String.pipe(
    Schema.pattern(/^\d{1,9}$/, { message: () => `${name} must be an integer between ${min} and ${max}` }),
    Schema.compose(Schema.NumberFromString),
    Schema.filter((n) => n >= min && n <= max, {
      message: () => `${name} must be an integer between ${min} and ${max}`
    }),
    Schema.annotations({ jsonSchema: { type: "integer", minimum: min, maximum: max } })
  )

export const PageQuery = (defaultPageSize: number = DEFAULT_PAGE_SIZE) =>
  Schema.Struct({
    page: Schema.optionalWith(IntFromQuery("page", 1, 1_000_000_000 - 1), { default: () => 1 }),
    pageSize: Schema.optionalWith(IntFromQuery("pageSize", 1, MAX_PAGE_SIZE), { default: () => defaultPageSize })
  })

export interface PageRequest {
  readonly page: number
  readonly pageSize: number
}

export interface Page<A> {
  readonly items: ReadonlyArray<A>
  readonly total: number
  readonly page: number
  readonly pageSize: number
  readonly totalPages: number
}

export const Page = <A, I, R>(item: Schema.Schema<A, I, R>) =>
  Schema.Struct({
    items: Schema.Array(item),
    total: Schema.Int,
    page: Schema.Int,
    pageSize: Schema.Int,
    totalPages: Schema.Int
  })

export const offsetOf = (request: PageRequest): number => (request.page - 1) * request.pageSize

export const makePage = <A>(items: ReadonlyArray<A>, total: number, request: PageRequest): Page<A> => ({
  items,
  total,
  page: request.page,
  pageSize: request.pageSize,
  totalPages: Math.ceil(total / request.pageSize)
})
