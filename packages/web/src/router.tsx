/**
 * Client-side routes on the History API: the gateway answers every dashboard route with index.html
 * (DASHBOARD_ROUTES in packages/http/src/Gateway/Dashboard.ts), so a reload or a shared link works.
 */
import { signal } from "@preact/signals"
import type { ComponentChildren, JSX } from "preact"

export const path = signal(location.pathname)
export const query = signal(location.search)

export const navigate = (to: string, options: { readonly replace?: boolean } = {}) => {
  const url = new URL(to, location.origin)
  if (url.pathname + url.search === location.pathname + location.search) return
  if (options.replace === true) history.replaceState(null, "", url)
  else history.pushState(null, "", url)
  path.value = url.pathname
  query.value = url.search
  window.scrollTo(0, 0)
}

addEventListener("popstate", () => {
  path.value = location.pathname
  query.value = location.search
})

/** `pattern` like `/campaigns/:id`: the named segments when `pathname` matches, else null. */
export const match = (pattern: string, pathname: string): Record<string, string> | null => {
  const want = pattern.split("/").filter(Boolean)
  const have = pathname.split("/").filter(Boolean)
  if (want.length !== have.length) return null
  const params: Record<string, string> = {}
  for (let i = 0; i < want.length; i++) {
    if (want[i]!.startsWith(":")) params[want[i]!.slice(1)] = decodeURIComponent(have[i]!)
    else if (want[i] !== have[i]) return null
  }
  return params
}

type AnchorProps = JSX.HTMLAttributes<HTMLAnchorElement> & {
  readonly href: string
  readonly children?: ComponentChildren
}

/** A link that changes the route without reloading the page (a modified click opens a new tab as usual). */
export const Link = ({ href, children, ...rest }: AnchorProps) => (
  <a
    {...rest}
    href={href}
    onClick={(event) => {
      if (
        event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey
      ) return
      event.preventDefault()
      navigate(href)
    }}
  >
    {children}
  </a>
)
