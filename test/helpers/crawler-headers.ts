// User-Agent headers as real crawlers send them (from each operator's published documentation),
// and a robots.txt that names each crawler the way sites write it.

export const HEADERS = {
  /** RFC 9309 §2.2.1's own example. */
  rfcExample: 'Mozilla/5.0 (compatible; ExampleBot/0.1; https://www.example.com/bot.html)',
  googlebotDesktop:
    'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; Googlebot/2.1; +http://www.google.com/bot.html) Chrome/131.0.6778.204 Safari/537.36',
  googlebotDesktopClassic: 'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)',
  googlebotSmartphone:
    'Mozilla/5.0 (Linux; Android 6.0.1; Nexus 5X Build/MMB29P) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.6778.204 Mobile Safari/537.36 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)',
  bingbot:
    'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; bingbot/2.0; +http://www.bing.com/bingbot.htm) Chrome/116.0.1938.76 Safari/537.36',
  gptbot: 'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; GPTBot/1.1; +https://openai.com/gptbot)',
  /** OpenAI's agents as OpenAI publishes them: `compatible;` outside the parentheses. */
  gptbotPublished: 'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko); compatible; GPTBot/1.1; +https://openai.com/gptbot',
  chatgptUser: 'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko); compatible; ChatGPT-User/1.0; +https://openai.com/bot',
  oaiSearchbot: 'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko); compatible; OAI-SearchBot/1.0; +https://openai.com/searchbot',
  claudebot: 'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; ClaudeBot/1.0; +claudebot@anthropic.com)',
  /** No `compatible;` product: the crawler must say its token (productToken: 'AI2Bot'). */
  ai2bot: 'Mozilla/5.0 (compatible) AI2Bot (+https://www.allenai.org/crawler)',
  mj12bot: 'Mozilla/5.0 (compatible; MJ12bot/v1.4.8; http://mj12bot.com/)',
  img2dataset:
    'Mozilla/5.0 (X11; Ubuntu; Linux x86_64; rv:72.0) Gecko/20100101 Firefox/72.0 (compatible; img2dataset; +https://github.com/rom1504/img2dataset)',
  /** A bare browser: names no crawler. */
  chrome: 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36',
} as const;

/** Each named crawler is shut out of one path of its own; everyone else only out of /private/. */
export const NAMING_FILE = `# Written as sites write it: names, not header strings.
User-agent: ExampleBot
Disallow: /example-only/

User-agent: Googlebot
Disallow: /google-only/

User-agent: bingbot
Disallow: /bing-only/

User-agent: GPTBot
Disallow: /

User-agent: ClaudeBot
Disallow: /claude-only/

User-agent: ChatGPT-User
Disallow: /chatgpt-only/

User-agent: OAI-SearchBot
Disallow: /oai-search-only/

User-agent: AI2Bot
Disallow: /ai2-only/

User-agent: MJ12bot
Disallow: /mj12-only/

User-agent: img2dataset
Disallow: /img2-only/

User-agent: *
Disallow: /private/
`;
