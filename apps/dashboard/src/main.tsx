import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { api, Unauthorized } from './api.js';
import { Breaker } from './pages/Breaker.js';
import { Login } from './pages/Login.js';
import { Overview } from './pages/Overview.js';
import { Webhooks } from './pages/Webhooks.js';
import './styles.css';

type Route = { page: 'overview' } | { page: 'breaker'; id: string } | { page: 'webhooks' };

function routeOf(hash: string): Route {
  const m = /^#\/breakers\/([0-9a-f-]{36})$/.exec(hash);
  if (m) return { page: 'breaker', id: m[1]! };
  if (hash === '#/webhooks') return { page: 'webhooks' };
  return { page: 'overview' };
}

function App() {
  const [auth, setAuth] = useState<'unknown' | 'in' | 'out'>('unknown');
  const [route, setRoute] = useState<Route>(routeOf(location.hash));
  useEffect(() => {
    const onHash = () => setRoute(routeOf(location.hash));
    addEventListener('hashchange', onHash);
    api('GET', '/v1/admin/session').then(
      () => setAuth('in'),
      () => setAuth('out'),
    );
    return () => removeEventListener('hashchange', onHash);
  }, []);
  // any 401 (session expired, logged out elsewhere) goes back to the login
  const onError = (err: unknown) => {
    if (err instanceof Unauthorized) setAuth('out');
  };
  const logout = async () => {
    await api('DELETE', '/v1/admin/session');
    setAuth('out');
  };

  if (auth === 'unknown') return <p>…</p>;
  if (auth === 'out') return <Login onLoggedIn={() => setAuth('in')} />;
  return (
    <>
      <nav>
        <b>Recloser</b>
        <a href="#/" class={route.page === 'overview' ? 'active' : ''}>
          Overview
        </a>
        <a href="#/webhooks" class={route.page === 'webhooks' ? 'active' : ''}>
          Webhooks
        </a>
        <span class="spacer" />
        <button onClick={() => void logout()}>Log out</button>
      </nav>
      <main>
        {route.page === 'overview' && <Overview onError={onError} />}
        {route.page === 'breaker' && <Breaker id={route.id} onError={onError} />}
        {route.page === 'webhooks' && <Webhooks onError={onError} />}
      </main>
    </>
  );
}

render(<App />, document.getElementById('app')!);
