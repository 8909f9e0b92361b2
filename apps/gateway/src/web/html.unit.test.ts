/** The html`` template escapes every value unless it is itself html``; arrays join, nothing renders nothing. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { html } from './html.js';

describe('html tagged template', () => {
  it('escapes text and attribute values', () => {
    const name = `<script>alert("x")</script> & 'q' \`b\` \u202Eexe`;
    assert.equal(
      html`<a title="${name}">${name}</a>`.text,
      '<a title="&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &#39;q&#39; &#96;b&#96; \u202Eexe">&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &#39;q&#39; &#96;b&#96; \u202Eexe</a>',
    );
  });

  it('keeps nested html, joins arrays and drops null, undefined and false', () => {
    const items = ['<a>', 'b'].map((i) => html`<li>${i}</li>`);
    assert.equal(html`<ul>${items}${null}${undefined}${false}${0}</ul>`.text, '<ul><li>&lt;a&gt;</li><li>b</li>0</ul>');
  });

  it('escapes a plain string even when it looks like markup (no raw strings)', () => {
    const markup: string = '<b>bold</b>';
    assert.equal(html`${markup}`.text, '&lt;b&gt;bold&lt;/b&gt;');
  });
});
