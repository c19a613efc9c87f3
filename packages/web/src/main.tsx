import { render } from "preact"
import { useEffect } from "preact/hooks"
import { endSession, session, watchExpiry } from "./api"
import { AgentPage, AgentsPage } from "./pages/Agents"
import { AuthPage } from "./pages/Auth"
import { CallPage, CallsPage } from "./pages/Calls"
import { CampaignPage, CampaignsPage } from "./pages/Campaigns"
import { ContactListPage, ContactListsPage } from "./pages/Contacts"
import { KeysPage } from "./pages/Keys"
import { KnowledgeBasePage, KnowledgeBasesPage } from "./pages/Knowledge"
import { MessagingPage } from "./pages/Messaging"
import { WalletPage } from "./pages/Wallet"
import { Link, match, navigate, path } from "./router"
import "./styles.css"

const NAV = [
  ["/agents", "Agents"],
  ["/contacts", "Contacts"],
  ["/campaigns", "Campaigns"],
  ["/calls", "Calls"],
  ["/knowledge", "Knowledge"],
  ["/messaging", "Messaging"],
  ["/wallet", "Wallet"],
  ["/keys", "API keys"]
] as const

const routes: ReadonlyArray<readonly [string, (params: Record<string, string>) => preact.JSX.Element]> = [
  ["/agents", () => <AgentsPage />],
  ["/agents/:id", (p) => <AgentPage id={p["id"]!} />],
  ["/contacts", () => <ContactListsPage />],
  ["/contacts/:id", (p) => <ContactListPage id={p["id"]!} />],
  ["/campaigns", () => <CampaignsPage />],
  ["/campaigns/:id", (p) => <CampaignPage id={p["id"]!} />],
  ["/calls", () => <CallsPage />],
  ["/calls/:id", (p) => <CallPage id={p["id"]!} />],
  ["/knowledge", () => <KnowledgeBasesPage />],
  ["/knowledge/:id", (p) => <KnowledgeBasePage id={p["id"]!} />],
  ["/messaging", () => <MessagingPage />],
  ["/wallet", () => <WalletPage />],
  ["/keys", () => <KeysPage />]
]

const NotFound = () => (
  <section class="page">
    <h1>Not found</h1>
    <p>
      No page at <code>{path.value}</code>. <Link href="/agents">Go to your agents</Link>.
    </p>
  </section>
)

const App = () => {
  const current = path.value
  const signedIn = session.value !== null
  useEffect(() => {
    if (!signedIn && current !== "/login" && current !== "/signup") navigate("/login", { replace: true })
    else if (signedIn && (current === "/" || current === "/login" || current === "/signup")) {
      navigate("/agents", { replace: true })
    }
  }, [signedIn, current])
  // move focus to the new page's heading, so a screen reader announces it and Tab starts there
  useEffect(() => {
    document.getElementById("page-title")?.focus({ preventScroll: true })
  }, [current])
  if (!signedIn) return current === "/signup" ? <AuthPage mode="signup" /> : <AuthPage mode="login" />
  let page = <NotFound />
  for (const [pattern, view] of routes) {
    const params = match(pattern, current)
    if (params !== null) {
      page = view(params)
      break
    }
  }
  return (
    <>
      <a class="skip" href="#main">Skip to content</a>
      <header class="top">
        <Link href="/agents" class="brand">Voice agents</Link>
        <nav aria-label="Main">
          <ul>
            {NAV.map(([href, label]) => (
              <li key={href}>
                <Link
                  href={href}
                  aria-current={current === href || current.startsWith(`${href}/`) ? "page" : undefined}
                >
                  {label}
                </Link>
              </li>
            ))}
          </ul>
        </nav>
        <div class="who">
          <span>{session.value?.email}</span>
          <button type="button" class="secondary" onClick={() => endSession(null)}>Log out</button>
        </div>
      </header>
      <main id="main">{page}</main>
    </>
  )
}

watchExpiry()
render(<App />, document.getElementById("app")!)
