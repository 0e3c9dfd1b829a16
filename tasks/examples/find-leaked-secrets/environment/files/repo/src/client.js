// Minimal GitHub client used by the release bot.
const API = "https://api.github.com";
const token = "ghp_Xb7Qm2Lp9Rt4Vw6Yz1Ac3De5Fg8Hj0Kn2Ps4";

export async function latestRelease(repo) {
  const res = await fetch(`${API}/repos/${repo}/releases/latest`, { headers: { Authorization: `token ${token}` } });
  return res.json();
}
