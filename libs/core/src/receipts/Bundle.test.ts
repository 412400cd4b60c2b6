import { describe, expect, it } from 'vitest';
import { verifierKey } from './Checkpoint.js';
import { verifyBundle, type Bundle } from './Bundle.js';
import { fixture, signedVerdict } from './bundleFixture.test-support.js';
import { nodeCrypto, testSigner } from './nodeCrypto.test-support.js';

const copy = (b: Bundle): Bundle => structuredClone(b);
const failure = (b: Bundle, opts = {}) => {
  const r = verifyBundle(b, nodeCrypto, opts);
  return r.ok ? 'verified' : r.failure;
};

describe('verifyBundle', () => {
  const fx = fixture();
  const pinned = [verifierKey(nodeCrypto.sha256, 'recloser.test/log', fx.controller.publicKey)];

  it('an untouched bundle verifies, with pinned keys and with the bundle’s own (said so)', () => {
    const r = verifyBundle(fx.bundle, nodeCrypto, { pinned });
    expect(r).toMatchObject({ ok: true, entries: 5, receipts: 1 });
    const own = verifyBundle(fx.bundle, nodeCrypto);
    expect(own.ok && own.warnings.some((w) => /taken from the bundle/.test(w))).toBe(true);
    expect(own.ok && own.warnings.some((w) => /6 of 7 verdicts unsigned/.test(w))).toBe(true);
  });

  it('refuses a changed verdict in a certificate', () => {
    const b = copy(fx.bundle);
    const v = b.receipts[0]!.statement.verdicts[1]!;
    if (!v.signed) v.state = 'closed';
    expect(failure(b, { pinned })).toMatch(/receipt 1 .*statement shown differs from the signed payload/);
    const renamed = copy(fx.bundle);
    renamed.receipts[0]!.statement.verdicts[0]!.instanceId = 'r9-forged';
    expect(failure(renamed, { pinned })).toMatch(/differs from the signed payload/);
  });

  it('refuses a changed log entry', () => {
    const b = copy(fx.bundle);
    b.entries[4]!.entry.reason = 'nothing to see';
    expect(failure(b, { pinned })).toMatch(/entry 5 .*inclusion proof does not reach the checkpoint's root/);
  });

  it('refuses a dropped log entry (first, middle or last)', () => {
    for (const at of [0, 2, 4]) {
      const b = copy(fx.bundle);
      b.entries.splice(at, 1);
      expect(failure(b, { pinned })).toMatch(/entries: 4 in the bundle but the manifest lists 5/);
    }
    const both = copy(fx.bundle); // dropped from the entries and from the manifest: the signature breaks
    both.entries.splice(0, 1);
    const m = JSON.parse(Buffer.from(both.manifest.payload, 'base64').toString()) as {
      leafIndexes: number[];
    };
    m.leafIndexes.splice(0, 1);
    both.manifest.payload = Buffer.from(JSON.stringify(m)).toString('base64');
    expect(failure(both, { pinned })).toMatch(/manifest: /);
  });

  it('refuses reordered entries', () => {
    const b = copy(fx.bundle);
    [b.entries[1], b.entries[2]] = [b.entries[2]!, b.entries[1]!];
    expect(failure(b, { pinned })).toMatch(
      /entry 2 .*the manifest puts leaf 3 here \(entries reordered or dropped\)/,
    );
  });

  it('refuses a replayed verdict (signed in another epoch)', () => {
    const b = fx.build({ verdict: { epoch: 3 } });
    expect(failure(b)).toMatch(/verdict of r0 was signed in epoch 3, not 0 \(a replay\)/);
  });

  it('refuses a verdict signed by a forged instance key', () => {
    const b = fx.build({ verdictSigner: testSigner('r0') });
    expect(failure(b)).toMatch(/verdict of r0: signed by unknown key r0\+/);
    const forger = testSigner('r0'); // another key claiming r0's key id
    const claimed = fx.build({ verdictSigner: { ...forger, keyId: fx.instance.keyId } });
    expect(failure(claimed)).toMatch(/verdict of r0: signature does not verify/);
    const swapped = copy(fx.bundle); // the envelope of another instance's verdict in r0's place
    const v = swapped.receipts[0]!.statement.verdicts[0]!;
    if (v.signed) v.envelope = signedVerdict(fx.instance, { instanceId: 'r1' });
    expect(failure(swapped)).toMatch(/differs from the signed payload/);
  });

  it('refuses a checkpoint or manifest by a key that is not pinned', () => {
    expect(
      failure(fx.bundle, {
        pinned: [verifierKey(nodeCrypto.sha256, 'recloser.test/log', testSigner('x').publicKey)],
      }),
    ).toMatch(/checkpoint: checkpoint signature does not verify against any known key/);
  });

  it('refuses wrong quorum arithmetic and an unjustified ramp step, even when signed', () => {
    expect(failure(fx.build({ threshold: 4 }))).toMatch(
      /quorum does not hold: K=4 but max\(minOpen 2, ceil\(0.5·L 10\)\) is 5/,
    );
    expect(failure(fx.build({ rampFailed: ['successRate'] }))).toMatch(
      /ramp step not justified: outcome pass with failed gates/,
    );
  });

  it('checks consistency with the last checkpoint: a prefix passes, a fork is fatal', () => {
    const fy = fixture();
    const early = fy.bundle.checkpoint.note; // size 10
    const later = fy.build({ extraLeaves: 3 }); // the same log grown to 13
    const pins = [verifierKey(nodeCrypto.sha256, 'recloser.test/log', fy.controller.publicKey)];
    expect(failure(later, { pinned: pins, lastCheckpoint: early })).toBe('verified');
    const forkedNote = fy.build({ extraLeaves: 1 }).checkpoint.note; // size 11: not a prefix of a tree without that leaf…
    const grownElsewhere = fy.build({ extraLeaves: 0 }); // …at size 10, older than the note
    expect(failure(grownElsewhere, { pinned: pins, lastCheckpoint: forkedNote })).toMatch(
      /newer than the bundle's/,
    );
    const other = fy.build({ extraLeaves: 3, verdict: { seq: 8 } }); // a different history of the same size as `later`
    expect(failure(other, { pinned: pins, lastCheckpoint: later.checkpoint.note })).toMatch(
      /consistency: FORK/,
    );
  });

  describe('shift plan leaves (issue 14: shift plans are log leaves)', () => {
    const sx = fixture(); // its own log: building shifts changes the fixture's leaves
    const shifted = sx.build({ withShifts: true });
    const pinned = [verifierKey(nodeCrypto.sha256, 'recloser.test/log', sx.controller.publicKey)];
    it('a bundle with shift leaves between the transitions verifies; the chain head is the last transition’s', () => {
      expect(verifyBundle(shifted, nodeCrypto, { pinned })).toMatchObject({ ok: true, entries: 8 });
    });

    it('refuses a changed or dropped shift leaf', () => {
      const changed = copy(shifted);
      const started = changed.entries.find((e) => e.entry.type === 'recloser.shift/v1')!;
      if (started.entry.type === 'recloser.shift/v1') started.entry.receivers[0]!.ratePerSec = 250;
      expect(failure(changed, { pinned })).toMatch(/inclusion proof does not reach/);
      const dropped = copy(shifted);
      dropped.entries.splice(1, 1);
      expect(failure(dropped, { pinned })).toMatch(/entries: 7 in the bundle but the manifest lists 8/);
    });

    it('refuses a signed bundle whose shift leaf claims a phase its modes do not make', () => {
      const bad = sx.build({ withShifts: true, secondShiftPhase: 'ended' });
      expect(failure(bad, { pinned })).toMatch(/shift shifting → reversing is reversed, not ended/);
    });
  });

  it('a global OPEN’s verdict signed while its instance followed its region’s breaker is judged by that breaker’s epoch', () => {
    const R = '00000000-0000-4000-8000-00000000000b';
    const followed = { breakerId: R, epoch: 5 };
    expect(verifyBundle(fx.build({ verdict: { epoch: 5 }, followed }), nodeCrypto, { pinned })).toMatchObject(
      {
        ok: true,
      },
    );
    expect(verifyBundle(fx.build({ verdict: { epoch: 4 }, followed }), nodeCrypto, { pinned }).ok).toBe(true);
    expect(failure(fx.build({ verdict: { epoch: 0 }, followed }), { pinned })).toMatch(
      /verdict of r0 was signed in epoch 0, not 5 of its region's breaker .* \(a replay\)/,
    );
    // without it, the same verdict is a replay against the certificate's own epoch
    expect(failure(fx.build({ verdict: { epoch: 5 } }), { pinned })).toMatch(/signed in epoch 5, not 0/);
  });

  describe('a region_open’s certificate', () => {
    const G = '00000000-0000-4000-8000-00000000000a';
    const region = (over: Parameters<typeof fx.build>[0] = {}) =>
      fx.build({
        verdict: { epoch: 4 },
        certificate: { region: { region: 'eu-west', groupBreakerId: G, signedIn: 4 } },
        openingFigures: { scope: 'region:eu-west', regional: { region: 'eu-west', groupBreakerId: G } },
        ...over,
      });

    it('verifies: K from the region’s L, verdicts signed in its group breaker’s epoch (or one before)', () => {
      expect(verifyBundle(region(), nodeCrypto, { pinned })).toMatchObject({ ok: true, receipts: 1 });
      expect(verifyBundle(region({ verdict: { epoch: 3 } }), nodeCrypto, { pinned }).ok).toBe(true);
    });

    it('refuses a verdict signed in another epoch than its group breaker’s (a replay)', () => {
      expect(failure(region({ verdict: { epoch: 2 } }), { pinned })).toMatch(
        /receipt 1 .*verdict of r0 was signed in epoch 2, not 4 or within 1 epoch before it \(a replay\)/,
      );
      // the epoch the breaker itself opened from does not stand in for its group breaker's
      expect(failure(region({ verdict: { epoch: 0 } }), { pinned })).toMatch(/signed in epoch 0, not 4/);
    });

    it('refuses a K that is not the threshold of the region’s L', () => {
      expect(failure(region({ threshold: 4 }), { pinned })).toMatch(
        /receipt 1 .*quorum does not hold: K=4 but max\(minOpen 2, ceil\(0.5·L 10\)\) is 5/,
      );
    });

    it('refuses a certificate for another region, a region entry certified as a global OPEN, and the reverse', () => {
      const other = region({
        certificate: { region: { region: 'us-east', groupBreakerId: G, signedIn: 4 } },
      });
      expect(failure(other, { pinned })).toMatch(
        /receipt 1 .*certificate is for region us-east of group breaker .*, the entry for region eu-west/,
      );
      expect(
        failure(
          fx.build({
            openingFigures: { scope: 'region:eu-west', regional: { region: 'eu-west', groupBreakerId: G } },
          }),
          {
            pinned,
          },
        ),
      ).toMatch(/entry opened region eu-west's breaker but its certificate is not a region's/);
      expect(failure(region({ openingFigures: {} }), { pinned })).toMatch(
        /certificate is for region eu-west but the entry opened no region's breaker/,
      );
    });

    it('refuses a changed region certificate (the statement shown is not the signed one)', () => {
      const b = region();
      b.receipts[0]!.statement.region!.region = 'us-east';
      expect(failure(b, { pinned })).toMatch(/receipt 1 .*statement shown differs from the signed payload/);
    });
  });
});
