/**
 * A Markdown answer as a model writes it (a fence, headings, tables, a list, quotes, a rule, in English and
 * Chinese), with `#`, `|`, `>` and `---` inside lines too (`C#`, `issue #12`, `a -> b`, `x => y`, `|:---|`) and
 * front matter inside code, a console link with camel-cased query names (`?stackId=`), and Chinese or lower-case lines right after a heading or a quote (whole ones read
 * so when a message each: ReplyState.blockLine): cut into tokens anywhere, it must read back as it is (token-cuts.test.ts,
 * send-equals-stream.property.test.ts).
 */
export const MARKDOWN_TEXT = [
  '## Resources',
  'Run this:',
  '```bash',
  'terraform apply',
  '```',
  'Then check the output.',
  '',
  '| Name | Status |',
  '|---|---|',
  '| vpc-1 | OK |',
  '',
  '- Check C# and issue #12: a -> b, x => y',
  '> Do not delete the VPC',
  '',
  '---',
  '## 资源列表',
  '| 名称 | 状态 |',
  '|:---|---:|',
  '| 专有网络 | 正常 |',
  '1. 创建专有网络',
  '> 请勿删除交换机',
  '## 部署结果',
  '专有网络已创建，交换机 vsw-1 已创建。',
  '查看 https://ros.console.aliyun.com/cn-hangzhou/stacks?stackId=abc&regionId=cn-hangzhou 。',
  '> 注意',
  '不要删除 VPC。',
  'created at 10:00',
  '```markdown',
  '---',
  'title: 部署说明',
  '---',
  '# 标题',
  '```',
  '完成。',
].join('\n');
