// The dashboard in headless Chromium (Debian's chromium, driven by playwright-core) against the real
// controller in-process: log in, watch a breaker go OPEN while a scenario runs, open its page,
// force-close it with a reason, see the transition in the log. Screenshots of the overview and of
// the breaker page (and of the webhooks page) are saved under test-results/screenshots/.
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFleetKey } from '../support/fleet-key.js';
import { heartbeat, sleep, verdict } from '../support/fleet.js';
import { bootTestApp, TEST_ADMIN_TOKEN, type TestApp } from '../support/test-app.js';
import { type Receiver, startReceiver } from './support/receiver.js';

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const SHOTS = fileURLToPath(new URL('../../test-results/screenshots/', import.meta.url));
const group = 'browser-group';
const dependency = 'browser-llm';
const instances = ['w1', 'w2', 'w3', 'w4'];

let t: TestApp;
let base: string;
let key: string;
let browser: Browser;
let page: Page;
let receiver: Receiver;
/** the scenario's fleet: what each instance reports, until stopped (bounded by MAX_ROUNDS) */
const fleet = { state: 'closed' as 'open' | 'closed', running: true, rounds: 0 };
const MAX_ROUNDS = 600;
let fleetLoop: Promise<void>;

beforeAll(async () => {
  if (!existsSync(CHROMIUM))
    throw new Error(
      `no Chromium at ${CHROMIUM}: apt-get install -y chromium (.ci/run does), or set CHROMIUM_PATH`,
    );
  mkdirSync(SHOTS, { recursive: true });
  receiver = await startReceiver();
  t = await bootTestApp({ RECLOSER_WEBHOOK_ALLOW_HOSTS: '127.0.0.1' });
  base = await t.listen();
  key = (await createFleetKey(t, [group])).key;
  fleetLoop = (async () => {
    while (fleet.running && fleet.rounds++ < MAX_ROUNDS) {
      await Promise.all(
        instances.map((instanceId) =>
          heartbeat(t, key, { instanceId, group, breakers: [verdict(dependency, fleet.state)] }),
        ),
      );
      await sleep(150);
    }
  })();
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
  });
  page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  page.setDefaultTimeout(20_000);
});

afterAll(async () => {
  fleet.running = false;
  await fleetLoop;
  await browser?.close();
  await t?.close();
  await receiver?.close();
});

describe('the dashboard in a browser', () => {
  it('log in, see a breaker go OPEN, open it, force-close it with a reason, see the transition', async () => {
    await page.goto(`${base}/`);
    await page.fill('input[name="token"]', TEST_ADMIN_TOKEN);
    await page.click('button[type="submit"]');
    await page.waitForSelector(`tr[data-dependency="${dependency}"][data-state="closed"]`);
    expect(await page.textContent('[data-testid="live-status"]')).toContain('live');

    // subscribe a loopback receiver to the outage's alerts through the webhooks page
    await page.click('nav a[href="#/webhooks"]');
    await page.fill('input[name="url"]', receiver.url);
    await page.fill('input[name="secret"]', 'browser-secret-123');
    await page.check('input[data-event="breaker.forced"]');
    await page.click('form.editor button[type="submit"]');
    await page.waitForSelector(`[data-testid="webhooks"] td:text("${receiver.url}")`);
    await page.click('nav a[href="#/"]');
    await page.waitForSelector(`tr[data-dependency="${dependency}"]`);

    // the outage: every instance locally open; the overview follows the event seam to OPEN
    fleet.state = 'open';
    const row = await page.waitForSelector(`tr[data-dependency="${dependency}"][data-state="open"]`);
    expect(await row.textContent()).toContain('OPEN');
    expect(await row.textContent()).toContain('4 / 4 (2)');
    await page.screenshot({ path: join(SHOTS, 'overview.png'), fullPage: true });

    await page.click(`tr[data-dependency="${dependency}"] a`);
    await page.waitForSelector('[data-testid="transitions"] tr[data-to="open"]');
    await page.waitForSelector('[data-testid="timeline"] canvas');
    expect(await page.locator('[data-testid="timeline"] canvas').count()).toBe(3);
    await page.waitForSelector('[data-testid="instances"] tbody tr');
    expect(await page.locator('[data-testid="instances"] tbody tr').count()).toBe(4);
    // what it learned of its provider: nothing yet, it has never recovered by a ramp
    expect(await page.textContent('[data-testid="learned"]')).toBe(
      'learned capacity: none yet (the next recovery grows fast up to the whole pool)',
    );

    // the provider is back and the fleet says so; the operator closes the breaker at once
    fleet.state = 'closed';
    await page.click('button[data-action="force_close"]');
    await page.click('[data-testid="confirm"]'); // without a reason: refused in the dialog
    expect(await page.textContent('.modal .error')).toContain('reason is required');
    const reason = 'provider confirmed recovery (browser test)';
    await page.fill('textarea[name="reason"]', reason);
    await page.click('[data-testid="confirm"]');
    const logged = await page.waitForSelector('[data-testid="transitions"] tr[data-actor="operator"]');
    expect(await logged.textContent()).toContain('open → closed');
    expect(await logged.textContent()).toContain(reason);
    await page.waitForSelector('h2 .badge[data-state="closed"]');
    await page.screenshot({ path: join(SHOTS, 'breaker.png'), fullPage: true });

    // what the page shows is the log: the API has the same transition
    const breakerId = page.url().split('/').pop()!;
    const log = await t.admin('GET', `/v1/admin/transitions?breakerId=${breakerId}`);
    expect(
      log.body.transitions.some(
        (x: { actor: string; reason: string }) => x.actor === 'operator' && x.reason.includes(reason),
      ),
    ).toBe(true);

    // the alerts of the outage and of the operator's action, delivered to the receiver
    await page.click('nav a[href="#/webhooks"]');
    await page.waitForSelector(
      '[data-testid="deliveries"] tr[data-status="delivered"][data-event="breaker.forced"]',
    );
    await page.waitForSelector(
      '[data-testid="deliveries"] tr[data-status="delivered"][data-event="breaker.opened"]',
    );
    const types = receiver.accepted().map((r) => JSON.parse(r.body).type as string);
    expect(types.filter((x) => x === 'breaker.opened')).toHaveLength(1);
    expect(types.filter((x) => x === 'breaker.forced')).toHaveLength(1);
    await page.screenshot({ path: join(SHOTS, 'webhooks.png'), fullPage: true });
    await page.click('nav button');
    await page.waitForSelector('input[name="token"]');
    expect((await page.request.get(`${base}/v1/admin/overview`)).status()).toBe(401);
  });
});
