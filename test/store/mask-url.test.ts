// Store URLs as messages show them: the password masked, also where the value is no valid URL.
import { describe, expect, it } from 'vitest';
import { describeUrl } from '../../src/store/pg/connect.js';
import { maskUrl, withoutPassword } from '../../src/store/mask-url.js';

describe('mask-url', () => {
  it('masks the password of a user part, valid URL or not', () => {
    expect(maskUrl('pg://u:s3cretpw@host/db')).toBe('pg://u:***@host/db');
    expect(maskUrl('postgres://u:s3cretpw@')).toBe('postgres://u:***@');
    expect(maskUrl('postgres://u:s3@cr/et@host:5432/db')).toBe('postgres://u:***@host:5432/db');
    expect(maskUrl('u:s3cretpw@host')).toBe('u:***@host');
    expect(maskUrl('postgres://:s3cretpw@host')).toBe('postgres://:***@host');
  });

  it('masks a password= parameter and leaves a URL without a password as it is', () => {
    expect(maskUrl('postgres://u@host/db?sslmode=require&password=s3cretpw&x=1')).toBe('postgres://u@host/db?sslmode=require&password=***&x=1');
    expect(maskUrl('postgres://u@localhost:5432/db')).toBe('postgres://u@localhost:5432/db');
    expect(maskUrl('not a url')).toBe('not a url');
  });

  it('describes a valid URL with its password and password= parameter hidden', () => {
    expect(describeUrl('postgres://u:s3cretpw@localhost:5432/db?password=other')).toBe('postgres://u:***@localhost:5432/db?password=***');
    expect(describeUrl('postgres://u:s3cretpw@')).toBe('postgres://u:***@');
  });

  it('takes the password out of a driver message that quotes it, raw or decoded', () => {
    expect(withoutPassword('bad password "p@ss" for p%40ss', 'postgres://u:p%40ss@host/db')).toBe('bad password "***" for ***');
    expect(withoutPassword('no secret here', 'postgres://u@host/db')).toBe('no secret here');
  });
});
