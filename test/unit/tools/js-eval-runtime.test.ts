import { describe, expect, it } from 'vitest';
import { isolatedVmBuildFor, jsEvalRuntime } from '../../../shared/js-eval-runtime.js';

const installed = (name: string): string => `/skate/node_modules/${name}/isolated-vm.js`;
const notInstalled = (name: string): string => {
  throw new Error(`Cannot find module '${name}'`);
};

describe('jsEvalRuntime', () => {
  it('picks isolated-vm 5 with --no-node-snapshot on Node 20, and 6 without it on 22 and 24', () => {
    expect(isolatedVmBuildFor('20.20.2')).toMatchObject({
      packageName: 'isolated-vm-v5',
      needsNoNodeSnapshot: true,
    });
    for (const version of ['22.23.3', '24.21.0']) {
      expect(isolatedVmBuildFor(version)).toMatchObject({
        packageName: 'isolated-vm-v6',
        needsNoNodeSnapshot: false,
      });
    }
    expect(jsEvalRuntime('24.21.0', installed)).toMatchObject({
      status: 'available',
      path: '/skate/node_modules/isolated-vm-v6/isolated-vm.js',
    });
  });

  it('names the missing package and the command that installs it', () => {
    const runtime = jsEvalRuntime('20.20.2', notInstalled);
    expect(runtime.status).toBe('unavailable');
    if (runtime.status !== 'unavailable') return;
    expect(runtime.reason).toContain('isolated-vm-v5');
    expect(runtime.fix).toContain('npm install');
    expect(runtime.fix).toContain('npm rebuild isolated-vm-v5');
    expect(runtime.fix).toContain('g++');
  });

  it('says which Nodes are supported on any other, without looking for a package', () => {
    for (const version of ['18.20.0', '21.7.3', '23.11.0', '26.1.0']) {
      const runtime = jsEvalRuntime(version, installed);
      expect(runtime).toMatchObject({ status: 'unavailable' });
      if (runtime.status === 'unavailable') {
        expect(runtime.reason).toContain(`Node ${version} is not supported`);
        expect(runtime.fix).toContain('Node 20, 22 or 24');
      }
    }
  });
});
