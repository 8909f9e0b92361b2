import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { readConfig } from './config.js';
import { DiskSpace, isDiskFull } from './disk-space.js';

describe('a full disk is recognised whatever store raised it', () => {
  const coded = (code: unknown, extra: object = {}) => Object.assign(new Error('x'), { code, ...extra });
  it('ENOSPC, EDQUOT, SQLITE_FULL, PostgreSQL 53100, MongoDB OutOfDiskSpace, also as a cause', () => {
    for (const code of ['ENOSPC', 'EDQUOT', 'SQLITE_FULL', '53100', 14031])
      assert.equal(isDiskFull(coded(code)), true, String(code));
    assert.equal(isDiskFull(coded(1, { codeName: 'OutOfDiskSpace' })), true);
    assert.equal(isDiskFull(new Error('wrapped', { cause: coded('ENOSPC') })), true);
  });
  it('other errors are not', () => {
    for (const error of [
      coded('ENOENT'),
      coded('SQLITE_BUSY'),
      coded('23505'),
      new Error('ENOSPC in a message only'),
      null,
      'ENOSPC',
    ])
      assert.equal(isDiskFull(error), false);
  });
});

describe('the low-disk threshold', () => {
  it('BURROW_MIN_FREE_DISK_MB: unset is the default rule, 0 turns it off, bad values are refused', () => {
    assert.equal(readConfig({}).minFreeDiskMb, undefined);
    assert.equal(readConfig({ BURROW_MIN_FREE_DISK_MB: '0' }).minFreeDiskMb, 0);
    assert.equal(readConfig({ BURROW_MIN_FREE_DISK_MB: '2048' }).minFreeDiskMb, 2048);
    assert.throws(() => readConfig({ BURROW_MIN_FREE_DISK_MB: '-1' }), /BURROW_MIN_FREE_DISK_MB/);
  });
  it('the default is the smaller of 512 MiB and 2% of the file system; a threshold above the free space is low', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'burrow-disk-'));
    const report = (await new DiskSpace(dir).report())!;
    assert.equal(report.minFreeBytes, Math.min(512 * 1024 * 1024, Math.floor(report.totalBytes * 0.02)));
    const huge = new DiskSpace(dir, 1_048_576);
    assert.equal((await huge.report())!.low, true);
    assert.match(await huge.describe(), /low disk space: .* MiB free in .*, below 1048576\.0 MiB/);
    await assert.rejects(huge.ensureRoom(), (error: { status?: number }) => error.status === 507);
    assert.equal(await new DiskSpace(dir, 0).describe(), 'ok');
    assert.equal(await new DiskSpace(null).describe(), 'ok');
  });
  it('concurrent checks share one statfs; a check after it settled makes a new one', async () => {
    const disk = new DiskSpace(mkdtempSync(join(tmpdir(), 'burrow-disk-')));
    const first = disk.report();
    assert.equal(disk.report(), first, 'a check arriving while one is under way shares it');
    const report = await first;
    const next = disk.report();
    assert.notEqual(next, first, 'an answer is not kept once given');
    assert.equal((await next)!.totalBytes, report!.totalBytes);
  });
});
