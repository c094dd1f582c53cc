import { redoLogVariable, resizing } from './database-settings';

describe('database settings', () => {
  it('sizes the redo log with innodb_redo_log_capacity where the server has it (MySQL 8.0.30+)', () => {
    expect(redoLogVariable(new Set(['innodb_redo_log_capacity', 'innodb_log_file_size']))).toBe(
      'innodb_redo_log_capacity',
    );
    expect(redoLogVariable(new Set(['innodb_log_file_size']))).toBe('innodb_log_file_size');
  });

  it('reads a buffer pool resize as under way until its status says it completed', () => {
    expect(resizing('')).toBe(false);
    expect(resizing('Completed resizing buffer pool at 261126  6:50:01.')).toBe(false);
    expect(resizing('Size did not change (old size = new size = 1073741824. Nothing to do.')).toBe(false);
    expect(resizing('Resizing buffer pool from 134217728 to 1073741824 (unit=134217728).')).toBe(true);
    expect(resizing('Withdrawing blocks to be shrunken.')).toBe(true);
  });
});
