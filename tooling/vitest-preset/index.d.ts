import type { UserWorkspaceConfig } from 'vitest/config';

/** A vitest project with Strata's shared settings; `overrides` are merged in. */
export function strataProject(name: string, overrides?: UserWorkspaceConfig): UserWorkspaceConfig;
